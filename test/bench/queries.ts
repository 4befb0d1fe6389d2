import { MUTATION_QUERIES, MUTATION_SQL_PARAMS } from './mutations.js';

/**
 * The benchmarked queries, each in the shape every target understands: this engine's
 * (Hasura's), PostGraphile v5's, and the hand-written single SQL statement that is the
 * limit for any Node server doing the same work through `pg`.
 */
export interface BenchQuery {
  name: string;
  engine: string;
  postgraphile: string;
  /** The GraphQL variables both GraphQL targets are sent with the query, as clients send them. */
  variables?: Record<string, unknown>;
  sql: string;
  /**
   * The same statement with every value a parameter, LIMIT included, where that differs from
   * `sql`: what the engine wrote before ARCHITECTURE decision 5 made LIMIT a literal. A LIMIT
   * that is a parameter is planned again on every execution (PostgreSQL's generic plan cannot
   * know it is small); this row shows what that costs the limit itself.
   */
  parameterized?: { sql: string; params: unknown[] };
}

export const QUERIES: BenchQuery[] = [
  {
    name: 'by primary key',
    engine: '{ track_by_pk(id: 12345) { id name milliseconds } }',
    postgraphile: '{ trackByRowId(rowId: 12345) { rowId name milliseconds } }',
    sql: `select json_build_object('track_by_pk', (select json_build_object('id', t.id, 'name', t.name, 'milliseconds', t.milliseconds) from track t where t.id = $1))::text as data`,
  },
  {
    name: 'filtered, ordered list of 20',
    engine: 'query ($album: Int!) { track(where: {album_id: {_gt: $album}}, order_by: {id: asc}, limit: 20) { id name milliseconds } }',
    postgraphile: 'query ($album: Int!) { allTracks(filter: {albumId: {greaterThan: $album}}, orderBy: PRIMARY_KEY_ASC, first: 20) { nodes { rowId name milliseconds } } }',
    variables: { album: 100 },
    sql: `select json_build_object('track', coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'milliseconds', t.milliseconds) order by t.id)
            from (select * from track where album_id > $1 order by id limit 20) t), '[]'))::text as data`,
    parameterized: {
      sql: `select json_build_object('track', coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'milliseconds', t.milliseconds) order by t.id)
              from (select * from track where album_id > $1 order by id limit $2) t), '[]'))::text as data`,
      params: [100, 20],
    },
  },
  {
    name: 'three nested levels with limits',
    engine: '{ artist(order_by: {id: asc}, limit: 10) { name albums(order_by: {id: asc}, limit: 5) { title tracks(order_by: {id: asc}, limit: 10) { name } } } }',
    postgraphile:
      '{ allArtists(orderBy: PRIMARY_KEY_ASC, first: 10) { nodes { name albumsByArtistId(orderBy: PRIMARY_KEY_ASC, first: 5) { nodes { title tracksByAlbumId(orderBy: PRIMARY_KEY_ASC, first: 10) { nodes { name } } } } } } }',
    sql: `select json_build_object('artist', coalesce(json_agg(json_build_object('name', a.name, 'albums', (
              select coalesce(json_agg(json_build_object('title', b.title, 'tracks', (
                select coalesce(json_agg(json_build_object('name', t.name) order by t.id), '[]')
                from (select * from track where album_id = b.id order by id limit 10) t)) order by b.id), '[]')
              from (select * from album where artist_id = a.id order by id limit 5) b)) order by a.id), '[]'))::text as data
          from (select * from artist order by id limit 10) a`,
  },
  {
    name: 'aggregate over one album',
    engine: '{ track_aggregate(where: {album_id: {_eq: 7}}) { aggregate { count sum { milliseconds } avg { milliseconds } max { milliseconds } } } }',
    postgraphile: '{ allTracks(condition: {albumId: 7}) { aggregates { distinctCount { rowId } sum { milliseconds } average { milliseconds } max { milliseconds } } } }',
    sql: `select json_build_object('track_aggregate', json_build_object('aggregate', json_build_object(
            'count', count(*), 'sum', json_build_object('milliseconds', sum(milliseconds)),
            'avg', json_build_object('milliseconds', avg(milliseconds)), 'max', json_build_object('milliseconds', max(milliseconds)))))::text as data
          from track where album_id = $1`,
  },
];

QUERIES.push(...MUTATION_QUERIES);

/** Parameters of the hand-written statements, in the order of QUERIES. */
export const SQL_PARAMS: unknown[][] = [[12345], [100], [], [7], ...MUTATION_SQL_PARAMS];

/** The bench data set's tables and relationships, as the engine tracks them. */
export const QUERY_TRACKING = [
  ...['genre', 'artist', 'album', 'track'].map((name) => ({ type: 'track_table', args: { name } })),
  { type: 'create_array_relationship', args: { table: 'artist', name: 'albums', using: { foreign_key_constraint_on: { table: 'album', column: 'artist_id' } } } },
  { type: 'create_object_relationship', args: { table: 'album', name: 'artist', using: { foreign_key_constraint_on: 'artist_id' } } },
  { type: 'create_array_relationship', args: { table: 'album', name: 'tracks', using: { foreign_key_constraint_on: { table: 'track', column: 'album_id' } } } },
  { type: 'create_object_relationship', args: { table: 'track', name: 'album', using: { foreign_key_constraint_on: 'album_id' } } },
];
