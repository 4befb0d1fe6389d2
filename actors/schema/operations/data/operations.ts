import type { Operation } from '../operation.js';
import { countRows } from './count.js';
import { insertRows } from './insert.js';
import { selectRows } from './select.js';

/** The v1 data API (Hasura's `select`, `count`, `insert`, `update`, `delete`), open to every role under its permissions. */
export const DATA_OPERATIONS = [selectRows, countRows, insertRows] as Operation<never>[];
