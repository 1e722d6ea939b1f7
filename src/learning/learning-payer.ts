// The token id learning's own model calls (reflect synthesis, a judge of a session without an owner) are counted under.
export const LEARNING_PAYER_ID = 'system:learning';
