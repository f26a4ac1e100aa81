/** A place on the globe, in degrees. */
export interface Point {
  readonly latitude: number
  readonly longitude: number
}

/** A record's coordinates as a point, where it has both. */
export const pointOf = (
  at: { readonly latitude?: number | undefined; readonly longitude?: number | undefined }
): Point | undefined =>
  at.latitude !== undefined && at.longitude !== undefined
    ? { latitude: at.latitude, longitude: at.longitude }
    : undefined

/** Great-circle distance in miles between two points (haversine, the Earth's mean radius). */
export const milesBetween = (a: Point, b: Point): number => {
  const rad = Math.PI / 180
  const dLat = (b.latitude - a.latitude) * rad
  const dLon = (b.longitude - a.longitude) * rad
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2
  return 2 * 3958.8 * Math.asin(Math.sqrt(h))
}
