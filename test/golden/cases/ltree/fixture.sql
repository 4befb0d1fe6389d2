-- ltree paths for the ltree operators (the extension is the user's, created here as a user would).
create extension ltree;
create table category (id int primary key, path ltree not null);
insert into category values
  (1, 'Top'), (2, 'Top.Science'), (3, 'Top.Science.Astronomy'), (4, 'Top.Science.Astronomy.Cosmology'),
  (5, 'Top.Hobbies'), (6, 'Top.Hobbies.Amateurs_Astronomy'), (7, 'Top.Collections.Pictures.Astronomy');
