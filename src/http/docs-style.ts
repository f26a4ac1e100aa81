/**
 * Styles added to the `/docs` reference (Scalar). An operation's response status tabs wrap onto a second line
 * instead of scrolling out of their card, so every status (422, 503, …) stays visible at any width.
 */
export const docsCss = `
.scalar-card-header-tabs { flex-wrap: wrap; height: auto; }
.scalar-card-header-tabs .tab-list { flex-wrap: wrap; overflow: visible; height: auto; row-gap: 4px; }
`
