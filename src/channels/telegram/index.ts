// The Telegram channel adapter (grammy): what the channel core imports from this folder.
export { createTelegramAdapter } from './adapter.js';
