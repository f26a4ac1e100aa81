FROM node:20-bookworm-slim
WORKDIR /app
COPY . .
# npm ci runs the package's `prepare`, which builds dist/ (its sources must be there: with only the package
# files copied first, scripts/build.mjs was missing and the install failed).
RUN npm ci
ENV PORT=8080
EXPOSE 8080
# node itself, not `npm start`: `docker stop` sends SIGTERM to the container's first process, which should be
# the server (npm's shell once kept it from the server, left running and killed ten seconds later without
# finishing its settles and refunds: an operator's audit; `npm start` now execs node). The flags are its.
CMD ["node", "--enable-source-maps", "--max-semi-space-size=64", "dist/propscore.mjs", "serve"]
