-- Spatial data for the PostGIS operators; PostGIS and postgis_raster are created by the harness, as a user would.
create table shape (id int primary key, geom geometry, area geography);
insert into shape values
  (1, 'SRID=4326;POINT(1 1)', 'SRID=4326;POINT(2.3522 48.8566)'),
  (2, 'SRID=4326;POLYGON((0 0, 0 2, 2 2, 2 0, 0 0))', 'SRID=4326;POINT(2.1301 48.8049)'),
  (3, 'SRID=4326;LINESTRING(-1 1, 3 1)', 'SRID=4326;POINT(4.8357 45.764)'),
  (4, 'SRID=4326;POINT Z(1 1 5)', null);
create table tile (id int primary key, rast raster);
insert into tile values
  (1, st_addband(st_makeemptyraster(2, 2, 0, 2, 1, -1, 0, 0, 4326), '8BUI'::text, 1, 0)),
  (2, st_addband(st_makeemptyraster(2, 2, 10, 12, 1, -1, 0, 0, 4326), '8BUI'::text, 1, 0));
