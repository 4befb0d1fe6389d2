import type { Pool } from '../../src/pg/pool.js';

/**
 * The benchmark's data set, artist/album/track style: 2,000 artists, 20,000 albums and
 * 200,000 tracks (the largest table), generated in SQL so that seeding takes seconds.
 */
export const SIZES = { genres: 25, artists: 2_000, albums: 20_000, tracks: 200_000 } as const;

export async function seedDataset(pool: Pool): Promise<void> {
  const seeded = await pool.query<{ n: string }>("select count(*) as n from pg_tables where schemaname = 'public' and tablename = 'track'");
  if (seeded.rows[0]!.n !== '0') {
    const tracks = await pool.query<{ n: string }>('select count(*) as n from track');
    if (Number(tracks.rows[0]!.n) === SIZES.tracks) return;
  }
  await pool.query(`
    drop table if exists track, album, artist, genre cascade;
    create table genre (id integer primary key, name text not null);
    create table artist (id integer primary key, name text not null, country text);
    create table album (id integer primary key, artist_id integer not null references artist(id), title text not null, released date);
    create table track (
      id integer primary key,
      album_id integer not null references album(id),
      genre_id integer not null references genre(id),
      name text not null,
      milliseconds integer not null,
      unit_price numeric(6, 2) not null
    );
    insert into genre select g, 'genre ' || g from generate_series(1, ${SIZES.genres}) g;
    insert into artist select a, 'artist ' || a, (array['NL','DE','FR','US','JP'])[1 + a % 5] from generate_series(1, ${SIZES.artists}) a;
    insert into album select b, 1 + (b - 1) % ${SIZES.artists}, 'album ' || b, date '2000-01-01' + (b % 7000) from generate_series(1, ${SIZES.albums}) b;
    insert into track select t, 1 + (t - 1) % ${SIZES.albums}, 1 + t % ${SIZES.genres}, 'track ' || t, 120000 + (t * 7919) % 240000, 0.99 + (t % 3)
      from generate_series(1, ${SIZES.tracks}) t;
    create index on album (artist_id);
    create index on track (album_id);
    create index on track (genre_id, name);
    analyze;
  `);
}
