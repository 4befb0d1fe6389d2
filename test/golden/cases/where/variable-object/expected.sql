select json_build_object('article', (
  select coalesce(json_agg(json_build_object('id', "_1"."id") order by "_1"."views" desc nulls first), '[]')
  from (
    select *
    from "public"."article" as "_1"
    where ("_1"."author_id" = any($1::int4[])) and ("_1"."is_published" = $2::bool)
    order by "_1"."views" desc nulls first
    limit 2
  ) as "_1"
))::text as "data"
-- $1 = [1,2]
-- $2 = true
