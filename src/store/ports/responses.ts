// The response storage port: which session each POST /v1/responses id belongs to (previous_response_id).

export interface ResponseRecord {
  responseId: string;
  sessionKey: string;
  /** Who created the response; only they (or an admin) may continue it. */
  clientId: string;
  createdAt: number;
}

export interface ResponsePort {
  save(record: ResponseRecord): Promise<void>;
  get(responseId: string): Promise<ResponseRecord | undefined>;
}
