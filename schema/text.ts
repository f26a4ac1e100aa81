/**
 * Text the service accepts from a request and stores or compares carries no control characters: C0
 * controls (NUL, tab, CR, LF among them), DEL and the C1 controls. PostgreSQL refuses NUL in text outright,
 * and the rest have no place in keys, names, URIs or OAuth parameters.
 */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/

export const hasControlCharacters = (text: string): boolean => CONTROL_CHARACTER.test(text)
