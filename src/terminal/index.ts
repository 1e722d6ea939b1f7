// Terminal drives: agents work in a real shell (a pseudo-terminal per drive) jailed by bubblewrap in their workspace,
// ended by a reaper on its caps, reached through the terminal_* tools and watched through the terminal.* methods.
export { createTerminalModule } from './module.js';
export type { terminalMethods } from './methods.js';
