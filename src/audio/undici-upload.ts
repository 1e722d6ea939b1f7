// undici's request and FormData behind a module of our own: imported on first use, it becomes an ES module chunk of the
// bundle whose named exports resolve (a dynamic import of the CommonJS package itself would give only its default).
export { FormData, request } from 'undici';
