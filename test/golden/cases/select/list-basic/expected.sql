select json_build_object('author', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'name', "_1"."name", 'birth_date', "_1"."birth_date", 'created_at', "_1"."created_at") order by "_1"."id" asc nulls last), '[]')
  from "public"."author" as "_1"
))::text as "data"
