// The PostgreSQL RunPort: the shared conformance cases against a fresh database on a throwaway server.
import { createPostgresRunPort } from '../../../src/store/postgres/index.js';
import { runPortCases } from '../runs.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('RunPort', runPortCases, createPostgresRunPort);
