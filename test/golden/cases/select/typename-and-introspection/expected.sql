select json_build_object('__type', $3::json, 'author', (
  select coalesce(json_agg(json_build_object('__typename', 'author', 'name', "_1"."name")), '[]')
  from "public"."author" as "_1"
  where (exists (
    select 1
    from "public"."article" as "_2"
    where ("_2"."author_id" = "_1"."id") and ("_2"."is_published" = $1::bool)
  )) and ("_1"."id" = $2::int4)
))::text as "data"
-- $1 = true
-- $2 = "1"
-- $3 = "{\"name\":\"author\",\"fields\":[{\"name\":\"id\"},{\"name\":\"name\"},{\"name\":\"articles\"}]}"
