select json_build_object('shelves', (
  select coalesce(json_agg(json_build_object('title', "_1"."label") order by "_1"."label" asc nulls last), '[]')
  from "library"."shelf" as "_1"
  where (exists (
    select 1
    from "public"."author" as "_2"
    where "_2"."id" = $1::int4
  )) and ("_1"."owner_id" = "_1"."owner_id")
))::text as "data"
-- $1 = "2"
