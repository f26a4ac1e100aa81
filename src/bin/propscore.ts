/**
 * The `propscore` entry. Small on purpose: Node compiles a module's whole source before it runs any of it, and
 * built, the command's modules are one large file (about half a second to compile). The entry holds only what
 * must run before them, and loads the command (./run-command.ts) after:
 */
// first, no stack frames while the other modules load (stack-traces.ts);
import "./stack-traces.js"
// second, serve's first worker is forked, so that it compiles and loads its modules while this process does.
import "../cli/serve-early.js"

await import("./run-command.js")
