-- TPC-H Q13, customer distribution (WORD1 = special, WORD2 = requests); the derived table's
-- column names are given as aliases inside it (MariaDB takes no column list after AS c_orders)
select
  c_count,
  count(*) as custdist
from
  (
    select
      c_custkey,
      count(o_orderkey) as c_count
    from
      customer left outer join orders on
        c_custkey = o_custkey
        and o_comment not like '%special%requests%'
    group by
      c_custkey
  ) as c_orders
group by
  c_count
order by
  custdist desc,
  c_count desc
