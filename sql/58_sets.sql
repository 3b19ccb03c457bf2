-- The set-level primitives (rankwise.primitives.sets): aggregates over an exposure table, one row per
-- item listed within the cutoff (expo: its exposure; pos: its place by exposure ascending; incat:
-- whether it is in the catalog read; ncat: the catalog's size; irows, nrows: its training rows and the
-- training's), grouped per run or segment.

-- The listed items in the catalog (every listed item when the catalog is the listed items).
CREATE OR REPLACE TEMP MACRO rw_items_listed(expo, incat) AS
    sum(CASE WHEN incat THEN 1.0 ELSE 0.0 END)::DOUBLE;

-- The catalog's items.
CREATE OR REPLACE TEMP MACRO rw_catalog_items(ncat) AS
    max(ncat)::DOUBLE;

-- The Gini index of the exposures over the catalog's n items and the listed ones outside it, m
-- listed: (2 Σ pos·expo + (n − 2m − 1) Σ expo) / (n Σ expo); NULL over no listed item.
CREATE OR REPLACE TEMP MACRO rw_exposure_gini(expo, pos, incat, ncat) AS
    CASE WHEN sum(expo) > 0 THEN
        (2.0 * sum(pos * expo)
         + (max(ncat) + sum(CASE WHEN incat THEN 0.0 ELSE 1.0 END) - 2.0 * count(*) - 1.0) * sum(expo))
        / ((max(ncat) + sum(CASE WHEN incat THEN 0.0 ELSE 1.0 END)) * sum(expo))
    END::DOUBLE;

-- Elliot's GiniIndex over the catalog's n items, m listed: 1 − (2 Σ pos·expo + (n − 2m − 1) Σ expo) /
-- ((n − 1) Σ expo); NULL over no listed item or n ≤ 1.
CREATE OR REPLACE TEMP MACRO rw_elliot_gini(expo, pos, ncat) AS
    CASE WHEN sum(expo) > 0 AND max(ncat) > 1 THEN
        1.0 - (2.0 * sum(pos * expo) + (max(ncat) - 2.0 * count(*) - 1.0) * sum(expo)) / ((max(ncat) - 1.0) * sum(expo))
    END::DOUBLE;

-- −Σ p log_base p, p = expo / Σ expo; NULL over no listed item.
CREATE OR REPLACE TEMP MACRO rw_exposure_entropy(expo, base) AS
    CASE WHEN sum(expo) > 0 THEN (ln(sum(expo)) - sum(expo * ln(expo)) / sum(expo)) / ln(base) END::DOUBLE;

-- Σ expo.
CREATE OR REPLACE TEMP MACRO rw_exposure_total(expo) AS
    sum(expo)::DOUBLE;

-- Σ expo².
CREATE OR REPLACE TEMP MACRO rw_exposure_squares(expo) AS
    sum(expo * expo)::DOUBLE;

-- The users scored.
CREATE OR REPLACE TEMP MACRO rw_users_scored(nscored) AS
    max(nscored)::DOUBLE;

-- Σ expo · log2(Σ lists / lists).
CREATE OR REPLACE TEMP MACRO rw_elliot_entropy_sum(expo, lists) AS
    (sum(expo * -log2(lists)) + sum(expo) * log2(sum(lists)))::DOUBLE;

-- Σ expo over the items of the popularity group.
CREATE OR REPLACE TEMP MACRO rw_popularity_group_exposure(expo, ingroup) AS
    sum(CASE WHEN ingroup THEN expo ELSE 0.0 END)::DOUBLE;

-- The popularity group's training items.
CREATE OR REPLACE TEMP MACRO rw_popularity_group_items(ngroup) AS
    max(ngroup)::DOUBLE;

-- The spread (combo) of the groups' values v = expo / gsize (gmean: their mean): min/max, max/min, max − min,
-- max |v − mean|, mean |v − mean|, √(Σ v²), the population variance; NULL where a ratio divides by 0.
CREATE OR REPLACE TEMP MACRO rw_group_exposure_spread(expo, gsize, gmean, combo) AS
    CASE combo
        WHEN 'MinMaxRatio' THEN CASE WHEN max(expo / gsize) <> 0 THEN min(expo / gsize) / max(expo / gsize) END
        WHEN 'MaxMinRatio' THEN CASE WHEN min(expo / gsize) <> 0 THEN max(expo / gsize) / min(expo / gsize) END
        WHEN 'MaxMinDiff' THEN max(expo / gsize) - min(expo / gsize)
        WHEN 'MaxAbsDiff' THEN max(abs(expo / gsize - gmean))
        WHEN 'MeanAbsDev' THEN avg(abs(expo / gsize - gmean))
        WHEN 'LTwo' THEN sqrt(sum(expo / gsize * (expo / gsize)))
        WHEN 'Variance' THEN avg((expo / gsize - gmean) * (expo / gsize - gmean))
    END::DOUBLE;

-- Σ expo · −log2(irows / nrows) over the items in training.
CREATE OR REPLACE TEMP MACRO rw_self_information_sum(expo, irows, nrows) AS
    sum(CASE WHEN irows > 0 THEN -expo * log2(irows / nrows) ELSE 0.0 END)::DOUBLE;

-- The catalog's check (to_sql's catalog= table): an item at least, no NULL item.
CREATE OR REPLACE TEMP MACRO rw_catalog_ok(n, null_items) AS
    CASE WHEN n = 0 THEN error('rankwise: the catalog (catalog=) has no items')
         WHEN null_items > 0 THEN error('rankwise: the catalog (catalog=) holds ' || CAST(null_items AS VARCHAR)
                                        || ' NULL item' || CASE WHEN null_items > 1 THEN 's' ELSE '' END)
         ELSE true END;
