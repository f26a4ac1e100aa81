FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build
ENV PORT=8080
EXPOSE 8080
# node itself, not `npm start`: `docker stop` sends SIGTERM to the container's first process, and npm does
# not pass it on (the server, left running, was killed ten seconds later without finishing its settles and
# refunds: an operator's audit). The flags are `npm start`'s.
CMD ["node", "--enable-source-maps", "--max-semi-space-size=64", "dist/propscore.mjs", "serve"]
