select json_build_object('shelves', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'title', "_1"."label", 'owner', (
    select json_build_object('name', "_2"."name")
    from "public"."author" as "_2"
    where "_2"."id" = "_1"."owner_id"
    limit 1
  )) order by "_1"."label" asc nulls last), '[]')
  from "library"."shelf" as "_1"
), 'shelf_by_id', (
  select json_build_object('title', "_3"."label")
  from "library"."shelf" as "_3"
  where "_3"."id" = $1::uuid
))::text as "data"
-- $1 = "00000000-0000-0000-0000-000000000002"
