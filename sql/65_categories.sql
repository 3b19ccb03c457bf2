-- rankwise's category family (rankwise/primitives/categories.py): aggregate macros over the ranked rows (rnk the
-- rank) carrying the item categories' values, each row's in rank order within its query: catnew, how many of its
-- item's categories no item ranked above it has; catcount, how many categories its item has; catent, by how much
-- they raise sum_g h(c_g), c_g the rows ranked down to it with category g; catcountg, catentg, the same with each
-- row weighted by 0.85^(rnk - 1) (LensKit's GeometricRankWeight(0.85)); catall, the categories of the whole input.
-- An item without a category adds 0 to each.

-- h(s) = (s + eps) log2(s + eps), eps = 1e-6 (LensKit's; rankwise.primitives.categories.EPSILON): a category's
-- term of the entropy, times the total.
CREATE OR REPLACE TEMP MACRO rw_category_h(s) AS ((s + 1e-6) * log2(s + 1e-6))::DOUBLE;

-- Σ_{rnk <= k} catnew: the distinct categories of the top k.
CREATE OR REPLACE TEMP MACRO rw_category_count(rnk, catnew, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN catnew ELSE 0.0 END), 0.0)::DOUBLE;

-- log2 Z - (A + G eps log2 eps) / Z, Z = Σ_{rnk <= k} count + G eps, A = Σ_{rnk <= k} ent, G = catall (count,
-- ent: catcountg, catentg when geometric, else catcount, catent): -Σ_g p_g log2 p_g, p_g = (c_g + eps) / Z over
-- the G categories (LensKit's entropy, rank_biased_entropy).
CREATE OR REPLACE TEMP MACRO rw_category_entropy(rnk, catcount, catent, catcountg, catentg, catall, k, geometric) AS
    (log2(coalesce(sum(CASE WHEN rw_within(rnk, k) THEN (CASE WHEN geometric THEN catcountg ELSE catcount END)
                            ELSE 0.0 END), 0.0) + max(catall) * 1e-6)
     - (coalesce(sum(CASE WHEN rw_within(rnk, k) THEN (CASE WHEN geometric THEN catentg ELSE catent END)
                          ELSE 0.0 END), 0.0) + max(catall) * rw_category_h(0.0))
       / (coalesce(sum(CASE WHEN rw_within(rnk, k) THEN (CASE WHEN geometric THEN catcountg ELSE catcount END)
                            ELSE 0.0 END), 0.0) + max(catall) * 1e-6))::DOUBLE;

-- The item categories' data check (to_sql's categories table): true, or an error naming the fault
-- (rankwise.inputs.categories' words): no row at all, NULL items, NULL categories.
CREATE OR REPLACE TEMP MACRO rw_categories_ok(n, null_items, null_categories, item_name, category_name) AS
    CASE WHEN n = 0 THEN error('rankwise: the item categories (categories=) are empty: no (item, category) row')
         WHEN null_items > 0 THEN error('rankwise: the item categories (categories=) hold ' || CAST(null_items AS VARCHAR)
                                        || ' NULL value(s) in their item column ''' || item_name || '''')
         WHEN null_categories > 0 THEN error('rankwise: the item categories (categories=) hold '
                                             || CAST(null_categories AS VARCHAR) || ' NULL value(s) in their category column '''
                                             || category_name || '''; give an item without a category no row')
         ELSE true END;
