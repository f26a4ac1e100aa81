/**
 * The entry's first import: while the modules load, errors capture no stack frames. effect reads a stack
 * as it loads (to learn whether its internal calls get inlined), and with `--enable-source-maps` the first
 * stack read makes Node decode the bundle's whole source map: a third of a second of every start. The
 * entry restores the limit before it runs anything, so every stack trace after that is whole and mapped.
 */
export const stackTraceLimit = Error.stackTraceLimit
Error.stackTraceLimit = 0
