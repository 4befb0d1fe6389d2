select json_build_object('article', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'title', "_1"."title", 'body', "_1"."body") order by "_1"."id" asc nulls last), '[]')
  from (
    select *
    from (
      select "_2"."id", "_2"."author_id", "_2"."title", case when ("_2"."is_published" = $4::bool) or ("_2"."author_id" = $2::int4) then "_2"."body" end as "body", "_2"."rating", case when ("_2"."is_published" = $5::bool) or ("_2"."author_id" = $2::int4) then "_2"."views" end as "views", case when ("_2"."is_published" = $6::bool) or ("_2"."author_id" = $2::int4) then "_2"."is_published" end as "is_published", case when ("_2"."is_published" = $7::bool) or ("_2"."author_id" = $2::int4) then "_2"."published_on" end as "published_on"
      from "public"."article" as "_2"
      where (("_2"."is_published" = $1::bool) or ("_2"."author_id" = $2::int4)) or ("_2"."is_published" = $3::bool)
    ) as "_1"
    where "_1"."body" is not null
    order by "_1"."id" asc nulls last
    limit 2
  ) as "_1"
))::text as "data"
-- $1 = true
-- $2 = "1"
-- $3 = true
-- $4 = true
-- $5 = true
-- $6 = true
-- $7 = true
