-- rankwise core macros: gain, discount, relevance test, cutoff, safe division.
-- Shared by every metric. Load order (file names): 00_core, 05_checks, 10_ranking, 20_primitives,
-- 30_events, 40_diversity, 45_cwl, 90_evaluate; rankwise.sql is all of them in that order.
-- All macros are TEMP, so they install on read-only connections too.

-- Gain of a relevance value, negative relevance kept (nDCG/DCG's negative='gain': CatBoost, XGBoost's
-- linear gain, scikit-learn's dcg_score): 'linear': rel; 'exponential': 2^rel - 1. Unjudged (NULL): 0.
CREATE OR REPLACE TEMP MACRO rw_signed_gain(rel, kind) AS
    CASE
        WHEN rel IS NULL THEN 0.0::DOUBLE
        WHEN kind = 'exponential' THEN pow(2.0, rel::DOUBLE) - 1.0
        ELSE rel::DOUBLE
    END;

-- Gain of a relevance value. 'linear': max(rel, 0); 'exponential': 2^rel - 1 (Burges et al. 2005).
-- Unjudged (NULL) and non-positive relevance gain 0, as in trec_eval.
CREATE OR REPLACE TEMP MACRO rw_gain(rel, kind) AS
    CASE WHEN rel IS NULL OR rel <= 0 THEN 0.0::DOUBLE ELSE rw_signed_gain(rel, kind) END;

-- Rank discount. 'log2': log2(i + 1); 'jarvelin': max(1, log_b(i)) (Järvelin & Kekäläinen 2002);
-- 'reciprocal': i, the gain divided by the rank (CatBoost's NDCG/DCG denominator=Position).
CREATE OR REPLACE TEMP MACRO rw_discount(rnk, kind, base) AS
    CASE
        WHEN kind = 'jarvelin' THEN greatest(1.0, ln(rnk::DOUBLE) / ln(base::DOUBLE))
        WHEN kind = 'reciprocal' THEN rnk::DOUBLE
        ELSE log2(rnk::DOUBLE + 1.0)
    END;

-- A score as trec_eval 9 holds it: a 32-bit float (rounded to nearest; from the midpoint
-- above the largest float up, +-inf), back as a double.
CREATE OR REPLACE TEMP MACRO rw_float32(s) AS
    CASE WHEN abs(s) >= 3.4028235677973366e38 THEN sign(s) * CAST('inf' AS DOUBLE)
         ELSE CAST(CAST(s AS FLOAT) AS DOUBLE) END;

-- A document is relevant when its relevance >= t; unjudged documents never are.
CREATE OR REPLACE TEMP MACRO rw_is_rel(rel, t) AS coalesce(rel >= t, false);

-- Rank i is inside the cutoff k (k NULL = no cutoff).
CREATE OR REPLACE TEMP MACRO rw_within(rnk, k) AS (k IS NULL OR rnk <= k);

-- a / b, and 0 where b = 0 (trec_eval's rule for IDCG = 0, R = 0, ...).
CREATE OR REPLACE TEMP MACRO rw_div0(a, b) AS
    CASE WHEN b = 0 THEN 0.0::DOUBLE ELSE a::DOUBLE / b::DOUBLE END;

-- 1 / a, and 0 where a is NULL (reciprocal rank of "no relevant document").
CREATE OR REPLACE TEMP MACRO rw_recip0(a) AS
    CASE WHEN a IS NULL THEN 0.0::DOUBLE ELSE 1.0 / a::DOUBLE END;

-- 1 where a > 0, else 0.
CREATE OR REPLACE TEMP MACRO rw_positive(a) AS CASE WHEN a > 0 THEN 1.0::DOUBLE ELSE 0.0::DOUBLE END;

-- ERR's stop probability (Chapelle et al. 2009): (2^g - 1) / 2^max_rel, g = rel clipped to [0, max_rel].
CREATE OR REPLACE TEMP MACRO rw_err_stop(rel, max_rel) AS
    (pow(2.0, least(greatest(coalesce(rel::DOUBLE, 0.0), 0.0), max_rel::DOUBLE)) - 1.0)
        / pow(2.0, max_rel::DOUBLE);

-- One character for a relevance value (trec_eval relstring): the level's digit (floor), '>'
-- above 9, '-' unjudged (NULL), '.' judged negative ("in the pool but unjudged").
CREATE OR REPLACE TEMP MACRO rw_rel_char(rel) AS
    CASE
        WHEN rel IS NULL THEN '-'
        WHEN rel < 0 THEN '.'
        WHEN rel >= 10 THEN '>'
        ELSE CAST(CAST(floor(rel) AS BIGINT) AS STRING)
    END;

-- Scalar operations of the recipes (rankwise/primitives.py), one macro each.
CREATE OR REPLACE TEMP MACRO rw_div(a, b) AS a / b;
-- a / b, and NULL (undefined) where b = 0.
CREATE OR REPLACE TEMP MACRO rw_div_null(a, b) AS
    CASE WHEN b = 0 THEN NULL ELSE a::DOUBLE / b::DOUBLE END;
-- value, except for a query with nothing relevant (relevant <= 0) that ranked something (ranked > 0):
-- fill (NULL: left out of the mean), or, with refuse (the metric's label), an error naming the
-- metric and the query (the metrics' empty parameter; rankwise.errors.EmptyQueryError's words).
CREATE OR REPLACE TEMP MACRO rw_when_empty(relevant, ranked, value, qid, fill, refuse) AS
    CASE WHEN relevant <= 0 AND ranked > 0
         THEN (CASE WHEN refuse IS NULL THEN CAST(fill AS DOUBLE)
                    ELSE error('rankwise: metric ''' || refuse || ''' has nothing relevant for query '''
                               || CAST(qid AS STRING) || ''' (empty=''error'' refuses to score it)')
               END)
         ELSE CAST(value AS DOUBLE) END;
CREATE OR REPLACE TEMP MACRO rw_add(a, b) AS a + b;
CREATE OR REPLACE TEMP MACRO rw_sub(a, b) AS a - b;
CREATE OR REPLACE TEMP MACRO rw_mul(a, b) AS a * b;
CREATE OR REPLACE TEMP MACRO rw_least(a, b) AS least(a, b);
CREATE OR REPLACE TEMP MACRO rw_greatest(a, b) AS greatest(a, b);
CREATE OR REPLACE TEMP MACRO rw_floor(a) AS floor(a);
CREATE OR REPLACE TEMP MACRO rw_power(a, b) AS pow(a, b);
