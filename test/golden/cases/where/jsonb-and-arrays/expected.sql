select json_build_object('contains', (
  select coalesce(json_agg(json_build_object('name', "_1"."name", 'profile', "_1"."profile") order by "_1"."id" asc nulls last), '[]')
  from "public"."author" as "_1"
  where "_1"."profile" @> $1::jsonb
), 'has_key', (
  select coalesce(json_agg(json_build_object('name', "_2"."name")), '[]')
  from "public"."author" as "_2"
  where "_2"."profile" ? $2::text
), 'any_keys', (
  select coalesce(json_agg(json_build_object('name', "_3"."name")), '[]')
  from "public"."author" as "_3"
  where "_3"."profile" ?| $3::text[]
), 'all_keys', (
  select coalesce(json_agg(json_build_object('name', "_4"."name")), '[]')
  from "public"."author" as "_4"
  where "_4"."profile" ?& $4::text[]
), 'tagged', (
  select coalesce(json_agg(json_build_object('name', "_5"."name", 'tags', "_5"."tags")), '[]')
  from "public"."author" as "_5"
  where "_5"."tags" @> $5::_text
), 'moods', (
  select coalesce(json_agg(json_build_object('name', "_6"."name", 'mood', "_6"."mood") order by "_6"."mood" desc nulls first), '[]')
  from "public"."author" as "_6"
  where "_6"."mood" = any($6::"public"."mood"[])
))::text as "data"
-- $1 = "{\"lang\":\"en\"}"
-- $2 = "langs"
-- $3 = ["age","nope"]
-- $4 = ["lang","age"]
-- $5 = ["math"]
-- $6 = ["happy","sad"]
