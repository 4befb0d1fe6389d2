import { CHANGE_LOG_SCHEMA } from './catalog-change-log.js';
import type { Pool, PoolClient } from './pool.js';

/**
 * What the engine knows of the database: relations (tables, views, materialized views),
 * their columns, keys and foreign keys, enum types and functions. Read in one round trip
 * at start and after anything that may have changed it (run_sql, reload_metadata).
 */
export interface CatalogColumn {
  name: string;
  /** 1-based position, for stable ordering. */
  position: number;
  /** Type name as `format_type` prints it for the base type (`integer`, `text`, `timestamp with time zone`). */
  type: string;
  /** `pg_type.typname` of the base type (`int4`, `text`, `timestamptz`, `_int4` for arrays). */
  udtName: string;
  /** Schema of the column's type (user enums and domains live outside pg_catalog). */
  typeSchema: string;
  /** `pg_type.typtype`: b base, e enum, d domain, c composite, r range. */
  typeKind: string;
  /** For array columns, the element's `typname`; otherwise null. */
  elementUdtName: string | null;
  nullable: boolean;
  hasDefault: boolean;
  isGenerated: boolean;
  isIdentity: boolean;
  comment: string | null;
}

export interface CatalogForeignKey {
  constraint: string;
  /** Pairs of (column of this table, column of the referenced table), in key order. */
  columns: string[];
  refSchema: string;
  refTable: string;
  refColumns: string[];
}

export interface CatalogRelation {
  schema: string;
  name: string;
  /** r table, p partitioned table, v view, m materialized view, f foreign table. */
  kind: 'r' | 'p' | 'v' | 'm' | 'f';
  columns: CatalogColumn[];
  primaryKey: string[];
  uniqueConstraints: { name: string; columns: string[] }[];
  foreignKeys: CatalogForeignKey[];
  comment: string | null;
  /** Whether a view can be inserted into, updated and deleted from (auto-updatable, or by rules or INSTEAD OF triggers). */
  viewInfo: { insertable: boolean; updatable: boolean; deletable: boolean } | null;
}

export interface CatalogEnum {
  schema: string;
  name: string;
  values: string[];
}

export interface CatalogFunctionArg {
  name: string | null;
  type: string;
  typeSchema: string;
  /** `pg_type.typtype` of the argument's type (c composite for table rows, b base, p pseudo). */
  typeKind: string;
  /** For array arguments, the element's `typname`; otherwise null. */
  elementType: string | null;
  /** i IN, o OUT, b INOUT, v VARIADIC, t TABLE. */
  mode: string;
  hasDefault: boolean;
}

export interface CatalogFunction {
  schema: string;
  name: string;
  oid: number;
  /** i IMMUTABLE, s STABLE, v VOLATILE. */
  volatility: 'i' | 's' | 'v';
  returnsSet: boolean;
  returnType: string;
  returnTypeSchema: string;
  /** `pg_type.typtype` of the return type (c composite for table rows, b base, p pseudo). */
  returnTypeKind: string;
  /** For functions returning an array, the element's `typname`; otherwise null. */
  returnElementType: string | null;
  args: CatalogFunctionArg[];
  comment: string | null;
}

export interface Catalog {
  relations: Map<string, CatalogRelation>;
  enums: Map<string, CatalogEnum>;
  /** Keyed by `schema.name`; several entries mean the function is overloaded. */
  functions: Map<string, CatalogFunction[]>;
  /** The remote servers as this instance knows them (actors/schema/graphql/remote-cache.ts); absent: none. */
  remote?: RemoteCatalog;
}

/** Which introspection a remote schema is served from: a snapshot id of the remote-schema actor's store, null when its last introspection failed. */
export interface RemoteSnapshot {
  snapshot: string | null;
  error: string | null;
  /** When it was fetched (ms since the epoch, database clock); tells a reload from an older fetch. */
  fetchedAt: number;
}

export interface RemoteCatalog {
  snapshots: ReadonlyMap<string, RemoteSnapshot>;
  /** `--enable-remote-schema-permissions`: without it every role sees every remote schema whole. */
  permissionsEnabled: boolean;
}

/**
 * The key of a relation or function by schema and name. Kept by name: the consistency
 * check and the model build ask it millions of times at thousands of tables, and the
 * serialisation was a tenth of a metadata operation. The cache is bounded, since names
 * may come from requests.
 */
const relationKeys = new Map<string, Map<string, string>>();
let relationKeysKept = 0;
const RELATION_KEYS_KEPT = 200_000;

export function relationKey(schema: string, name: string): string {
  let bySchema = relationKeys.get(schema);
  const kept = bySchema?.get(name);
  if (kept !== undefined) return kept;
  const key = JSON.stringify([schema, name]);
  if (relationKeysKept >= RELATION_KEYS_KEPT) {
    relationKeys.clear();
    relationKeysKept = 0;
    bySchema = undefined;
  }
  if (bySchema === undefined) relationKeys.set(schema, (bySchema = new Map()));
  bySchema.set(name, key);
  relationKeysKept++;
  return key;
}

/** Schemas of PostgreSQL and of the engine (the catalog change log's among them), never the user's. */
const SYSTEM_SCHEMAS = `('pg_catalog', 'information_schema', 'service_catalog', '${CHANGE_LOG_SCHEMA}', 'pg_toast')`;

const INTROSPECTION_SQL = `
select json_build_object(
  'relations', coalesce((
    select json_agg(json_build_object(
      'schema', n.nspname,
      'name', c.relname,
      'kind', c.relkind,
      'comment', obj_description(c.oid, 'pg_class'),
      'viewInfo', case when c.relkind in ('v', 'm', 'f') then json_build_object(
          'insertable', (pg_relation_is_updatable(c.oid::regclass, true) & 8) = 8,
          'updatable', (pg_relation_is_updatable(c.oid::regclass, true) & 4) = 4,
          'deletable', (pg_relation_is_updatable(c.oid::regclass, true) & 16) = 16) end,
      'columns', coalesce((
        select json_agg(json_build_object(
          'name', a.attname,
          'position', a.attnum,
          'type', format_type(bt.oid, null),
          'udtName', bt.typname,
          'typeSchema', btn.nspname,
          'typeKind', bt.typtype,
          'elementUdtName', et.typname,
          'nullable', not a.attnotnull,
          'hasDefault', a.atthasdef or a.attidentity <> '',
          'isGenerated', a.attgenerated <> '',
          'isIdentity', a.attidentity <> '',
          'comment', col_description(c.oid, a.attnum)
        ) order by a.attnum)
        from pg_attribute a
        join pg_type t on t.oid = a.atttypid
        join pg_type bt on bt.oid = case when t.typtype = 'd' then t.typbasetype else t.oid end
        join pg_namespace btn on btn.oid = bt.typnamespace
        left join pg_type et on et.oid = bt.typelem and bt.typcategory = 'A'
        where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      ), '[]'::json),
      'primaryKey', coalesce((
        select json_agg(a.attname order by k.ord)
        from pg_constraint pk
        cross join lateral unnest(pk.conkey) with ordinality as k(attnum, ord)
        join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
        where pk.conrelid = c.oid and pk.contype = 'p'
      ), '[]'::json),
      'uniqueConstraints', coalesce((
        select json_agg(json_build_object('name', u.conname, 'columns', (
          select json_agg(a.attname order by k.ord)
          from unnest(u.conkey) with ordinality as k(attnum, ord)
          join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum)))
        from pg_constraint u
        where u.conrelid = c.oid and u.contype in ('u', 'p')
      ), '[]'::json),
      'foreignKeys', coalesce((
        select json_agg(json_build_object(
          'constraint', f.conname,
          'refSchema', rn.nspname,
          'refTable', rc.relname,
          'columns', (select json_agg(a.attname order by k.ord)
                        from unnest(f.conkey) with ordinality as k(attnum, ord)
                        join pg_attribute a on a.attrelid = f.conrelid and a.attnum = k.attnum),
          'refColumns', (select json_agg(a.attname order by k.ord)
                        from unnest(f.confkey) with ordinality as k(attnum, ord)
                        join pg_attribute a on a.attrelid = f.confrelid and a.attnum = k.attnum)
        ) order by f.conname)
        from pg_constraint f
        join pg_class rc on rc.oid = f.confrelid
        join pg_namespace rn on rn.oid = rc.relnamespace
        where f.conrelid = c.oid and f.contype = 'f'
      ), '[]'::json)
    ))
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'f')
      and n.nspname not in ${SYSTEM_SCHEMAS} and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast%'
      and not c.relispartition
  ), '[]'::json),
  'enums', coalesce((
    select json_agg(json_build_object(
      'schema', n.nspname, 'name', t.typname,
      'values', (select json_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid)))
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where t.typtype = 'e' and n.nspname not in ${SYSTEM_SCHEMAS}
  ), '[]'::json),
  'functions', coalesce((
    select json_agg(json_build_object(
      'schema', n.nspname,
      'name', p.proname,
      'oid', p.oid::bigint,
      'volatility', p.provolatile,
      'returnsSet', p.proretset,
      'returnType', rt.typname,
      'returnTypeSchema', rtn.nspname,
      'returnTypeKind', rt.typtype,
      'returnElementType', ret.typname,
      'comment', obj_description(p.oid, 'pg_proc'),
      'args', coalesce((
        select json_agg(json_build_object(
          'name', nullif(arg.name, ''),
          'type', at.typname,
          'typeSchema', atn.nspname,
          'typeKind', at.typtype,
          'elementType', aet.typname,
          'mode', arg.mode,
          'hasDefault', arg.ord > (coalesce(array_length(coalesce(p.proallargtypes, p.proargtypes::oid[]), 1), 0) - p.pronargdefaults)
        ) order by arg.ord)
        from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                    coalesce(p.proargmodes, array_fill('i'::"char", array[coalesce(array_length(p.proargtypes::oid[], 1), 0)])),
                    coalesce(p.proargnames, array_fill(''::text, array[coalesce(array_length(coalesce(p.proallargtypes, p.proargtypes::oid[]), 1), 0)])))
             with ordinality as arg(typ, mode, name, ord)
        join pg_type at on at.oid = arg.typ
        join pg_namespace atn on atn.oid = at.typnamespace
        left join pg_type aet on aet.oid = at.typelem and at.typcategory = 'A'
      ), '[]'::json)
    ))
    from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace
    join pg_type rt on rt.oid = p.prorettype
    join pg_namespace rtn on rtn.oid = rt.typnamespace
    left join pg_type ret on ret.oid = rt.typelem and rt.typcategory = 'A'
    where n.nspname not in ${SYSTEM_SCHEMAS} and n.nspname not like 'pg_temp%' and p.prokind = 'f'
  ), '[]'::json)
)::text as catalog`;

interface RawCatalog {
  relations: CatalogRelation[];
  enums: CatalogEnum[];
  functions: CatalogFunction[];
}

/** Reads the catalog through a pool, or a client whose transaction's DDL it should see. */
export async function introspectCatalog(db: Pool | PoolClient): Promise<Catalog> {
  const result = await db.query<{ catalog: string }>(INTROSPECTION_SQL);
  const raw = JSON.parse(result.rows[0]!.catalog) as RawCatalog;
  const relations = new Map(raw.relations.map((relation) => [relationKey(relation.schema, relation.name), relation]));
  const enums = new Map(raw.enums.map((item) => [relationKey(item.schema, item.name), item]));
  const functions = new Map<string, CatalogFunction[]>();
  for (const fn of raw.functions) {
    const key = relationKey(fn.schema, fn.name);
    functions.set(key, [...(functions.get(key) ?? []), fn]);
  }
  return { relations, enums, functions };
}
