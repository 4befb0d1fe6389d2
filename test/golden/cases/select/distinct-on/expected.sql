select json_build_object('article', (
  select coalesce(json_agg(json_build_object('author_id', "_1"."author_id", 'title', "_1"."title") order by "_1"."author_id" asc nulls last, "_1"."views" desc nulls first), '[]')
  from (
    select distinct on ("_1"."author_id") *
    from "public"."article" as "_1"
    order by "_1"."author_id" asc nulls last, "_1"."views" desc nulls first
  ) as "_1"
), 'first_per_published', (
  select coalesce(json_agg(json_build_object('is_published', "_2"."is_published") order by "_2"."is_published" asc nulls last), '[]')
  from (
    select distinct on ("_2"."is_published") *
    from "public"."article" as "_2"
    order by "_2"."is_published" asc nulls last
  ) as "_2"
))::text as "data"
