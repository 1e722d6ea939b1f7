// The PostgreSQL ObsPort: the shared conformance cases against a fresh database on a throwaway server.
import { createPostgresObsPort } from '../../../src/store/postgres/index.js';
import { obsPortCases } from '../obs.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('ObsPort', obsPortCases, createPostgresObsPort);
