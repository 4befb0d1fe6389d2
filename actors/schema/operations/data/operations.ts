import type { Operation } from '../operation.js';
import { countRows } from './count.js';
import { deleteRows } from './delete.js';
import { insertRows } from './insert.js';
import { selectRows } from './select.js';
import { updateRows } from './update.js';

/** The v1 data API (Hasura's `select`, `count`, `insert`, `update`, `delete`), open to every role under its permissions. */
export const DATA_API_OPERATIONS = [selectRows, insertRows, updateRows, deleteRows, countRows] as Operation<never>[];
