/** `<p>.requests.cancel` (schemas/bus/request-cancel.json): nobody waits for this request's answer any more. */
export interface RequestCancel {
  request_id: string;
}
