// The response storage port: which session each POST /v1/responses id belongs to, its status, and the response object.

/** OpenAI's response `status`; `queued` and `in_progress` are background responses that have not ended yet. */
export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

export const RESPONSE_STATUSES = [
  'queued',
  'in_progress',
  'completed',
  'incomplete',
  'failed',
  'cancelled',
] as const satisfies readonly ResponseStatus[];

/** The statuses of a background response still running (or left running by a process that stopped). */
export const UNFINISHED_RESPONSE_STATUSES: readonly ResponseStatus[] = ['queued', 'in_progress'];

export interface ResponseRecord {
  responseId: string;
  sessionKey: string;
  /** Who created the response; only they (or an admin) may continue, read, cancel or delete it. */
  clientId: string;
  /** Epoch ms; the retention (`responses.ttlDays`) counts from here. */
  createdAt: number;
  /** The status of the stored body; responses stored before statuses were kept read `completed`. */
  status: ResponseStatus;
  /** Created with `background: true`: its turn runs off the request, and it may be cancelled until it ends. */
  isBackground: boolean;
}

export interface StoredResponse extends ResponseRecord {
  /** The response object as the JSON text that was sent; undefined for responses stored before bodies were kept. */
  body: string | undefined;
}

export interface ResponsePort {
  save(record: ResponseRecord, body: string): Promise<void>;
  /** The record without its body (previous_response_id needs only the session). */
  get(responseId: string): Promise<ResponseRecord | undefined>;
  read(responseId: string): Promise<StoredResponse | undefined>;
  /**
   * Sets status and body in one step, only while the stored status is one of `from`; false when it is not (another
   * replica cancelled or ended it meanwhile, or it was deleted), and then nothing changes.
   */
  transition(responseId: string, from: readonly ResponseStatus[], to: ResponseStatus, body: string): Promise<boolean>;
  /** False when there was no such response. */
  delete(responseId: string): Promise<boolean>;
  /** Deletes at most `limit` responses created before `cutoffMs` (epoch ms), oldest first; resolves with how many went. */
  purgeCreatedBefore(cutoffMs: number, limit: number): Promise<number>;
}
