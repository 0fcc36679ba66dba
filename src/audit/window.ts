/**
 * How far back an audit may read: the queue keeps acknowledged items at least this long
 * (the retention of settled rows keeps some 8 days), and an item it no longer holds would
 * come back as foreign.
 */
export const MAX_AUDIT_DAYS = 7;

