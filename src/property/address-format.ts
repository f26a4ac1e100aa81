/**
 * The normalised address's shape and its display form. Apart from the normalisation (./address.ts) on
 * purpose: the server formats addresses on every answer but normalises them only when importing, and the
 * normaliser's parser (`@sroussey/parse-address`, built on XRegExp) compiles its patterns when it loads,
 * about a fifth of a second of every start otherwise.
 */
export interface NormalizedAddress {
  /** The street line key: number, directional, street name, suffix: `22 BLUE HERON DR`. */
  readonly street: string
  /** The unit designator's value (`5B` for `Apt 5B`, `#5B` or a trailing `, 5B`), or "". */
  readonly unit: string
  readonly city?: string | undefined
  readonly state?: string | undefined
  readonly zip?: string | undefined
}

/** The display form of a normalised address. */
export const formatAddress = (address: NormalizedAddress) =>
  [
    address.unit ? `${address.street} UNIT ${address.unit}` : address.street,
    address.city,
    [address.state, address.zip].filter(Boolean).join(" ") || undefined
  ].filter(Boolean).join(", ")
