// The response storage port: which session each POST /v1/responses id belongs to, and the finished response object.

export interface ResponseRecord {
  responseId: string;
  sessionKey: string;
  /** Who created the response; only they (or an admin) may continue, read or delete it. */
  clientId: string;
  /** Epoch ms; the retention (`responses.ttlDays`) counts from here. */
  createdAt: number;
}

export interface StoredResponse extends ResponseRecord {
  /** The finished response object as the JSON text that was sent; undefined for responses stored before bodies were kept. */
  body: string | undefined;
}

export interface ResponsePort {
  save(record: ResponseRecord, body: string): Promise<void>;
  /** The record without its body (previous_response_id needs only the session). */
  get(responseId: string): Promise<ResponseRecord | undefined>;
  read(responseId: string): Promise<StoredResponse | undefined>;
  /** False when there was no such response. */
  delete(responseId: string): Promise<boolean>;
  /** Deletes at most `limit` responses created before `cutoffMs` (epoch ms), oldest first; resolves with how many went. */
  purgeCreatedBefore(cutoffMs: number, limit: number): Promise<number>;
}
