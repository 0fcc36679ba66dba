export const ITEM_STATES = ['pending', 'sending', 'unknown', 'uploaded', 'failed', 'dropped'];
