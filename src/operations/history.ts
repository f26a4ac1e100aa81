/** `POST /v1/history`: a property's recorded story, one Credit; exactly one of address or property_id. */
import { Effect } from "effect"
import { decodeHistoryRequest } from "../../schema/decode.js"
import { withKeyRefusal } from "./accept.js"
import { metered, type MeteredInput, meteredRequest, pastCallDeadline } from "./metered.js"
import { recordedHistory } from "./upstream.js"

export const history = (input: MeteredInput) =>
  Effect.gen(function*() {
    const query = yield* decodeHistoryRequest(input.body).pipe(withKeyRefusal(input.idempotencyKeyHeader))
    const request = yield* meteredRequest(input, {
      operation: "history",
      path: "/v1/history",
      subjects: [query.address ?? query.property_id!]
    })
    return yield* metered(
      request,
      () =>
        Effect.map(
          recordedHistory(
            query.property_id !== undefined ? { propertyId: query.property_id } : { address: query.address! }
          ),
          (answer) => ({ status: 200, body: answer })
        ),
      pastCallDeadline
    )
  })
