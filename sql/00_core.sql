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
        WHEN kind = 'binary' THEN CASE WHEN rel > 0 THEN 1.0 ELSE 0.0 END
        ELSE rel::DOUBLE
    END;

-- Gain of a relevance value. 'linear': max(rel, 0); 'exponential': 2^rel - 1 (Burges et al. 2005);
-- 'binary': 1 for a positive relevance.
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

-- ln(n!) of a whole n >= 0 (n < 0 read as 0): Stirling's series of ln Γ(z) at z = n + 17 (its
-- error below 1e-14 there) less ln((n + 1)(n + 2) ... (n + 16)); relative error about 1e-15
-- (the engines have no ln Γ: Spark SQL lacks it); ln C(n, k) of whole 0 <= k <= n.
CREATE OR REPLACE TEMP MACRO rw_ln_gamma_series(z) AS
    (z - 0.5) * ln(z) - z + 0.9189385332046727 + 1.0 / (12.0 * z) - 1.0 / (360.0 * pow(z, 3))
    + 1.0 / (1260.0 * pow(z, 5)) - 1.0 / (1680.0 * pow(z, 7));
CREATE OR REPLACE TEMP MACRO rw_ln_factorial(n) AS
    rw_ln_gamma_series(greatest(n::DOUBLE, 0.0) + 17.0)
    - ln((greatest(n::DOUBLE, 0.0) + 1.0) * (greatest(n::DOUBLE, 0.0) + 2.0) * (greatest(n::DOUBLE, 0.0) + 3.0) * (greatest(n::DOUBLE, 0.0) + 4.0) * (greatest(n::DOUBLE, 0.0) + 5.0) * (greatest(n::DOUBLE, 0.0) + 6.0) * (greatest(n::DOUBLE, 0.0) + 7.0) * (greatest(n::DOUBLE, 0.0) + 8.0) * (greatest(n::DOUBLE, 0.0) + 9.0) * (greatest(n::DOUBLE, 0.0) + 10.0) * (greatest(n::DOUBLE, 0.0) + 11.0) * (greatest(n::DOUBLE, 0.0) + 12.0) * (greatest(n::DOUBLE, 0.0) + 13.0) * (greatest(n::DOUBLE, 0.0) + 14.0) * (greatest(n::DOUBLE, 0.0) + 15.0) * (greatest(n::DOUBLE, 0.0) + 16.0));
CREATE OR REPLACE TEMP MACRO rw_ln_choose(n, k) AS rw_ln_factorial(n) - rw_ln_factorial(k) - rw_ln_factorial(n - k);

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
-- value, except for a query whose label (rw_label_outside: a judgment outside the metric's labels rule;
-- NULL, or 0, which every rule takes, where none is) is set: an error naming the metric, the query,
-- the label and the rule (the metrics' labels parameter; rankwise.errors.LabelError's words). A label
-- that is an integer below 10^15 is written without a decimal point, as Python writes it.
CREATE OR REPLACE TEMP MACRO rw_label_check(label, value, qid, metric, rule) AS
    CASE WHEN label IS NULL OR label = 0 THEN CAST(value AS DOUBLE)
         ELSE error('rankwise: metric ''' || metric || ''': query ''' || CAST(qid AS STRING) || ''' has label '
                    || (CASE WHEN label = floor(label) AND abs(label) < 1e15 THEN CAST(CAST(label AS BIGINT) AS STRING)
                             ELSE CAST(label AS STRING) END)
                    || '; ' || rule)
    END;
CREATE OR REPLACE TEMP MACRO rw_add(a, b) AS a + b;
CREATE OR REPLACE TEMP MACRO rw_sub(a, b) AS a - b;
CREATE OR REPLACE TEMP MACRO rw_mul(a, b) AS a * b;
CREATE OR REPLACE TEMP MACRO rw_least(a, b) AS least(a, b);
CREATE OR REPLACE TEMP MACRO rw_greatest(a, b) AS greatest(a, b);
CREATE OR REPLACE TEMP MACRO rw_floor(a) AS floor(a);
CREATE OR REPLACE TEMP MACRO rw_power(a, b) AS pow(a, b);
