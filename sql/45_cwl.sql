-- rankwise C/W/L user models (cwl_eval; Moffat et al.; Azzopardi, Thomas & Moffat, SIGIR 2019).
-- A user reads rank 1 and goes on from rank i to i + 1 with probability C_i; the chance of
-- reading rank i is P_i = d(i) * S_i: a discount d of the rank alone (rw_cwl_discount) times a
-- survival S_i of the gains above rank i (rw_cwl_reach). The primitives of
-- rankwise/primitives.py's C/W/L block, with the parameter names of their Polars functions.

-- cwl_eval's gain: (clip(max(rel, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel), 0 unjudged.
CREATE OR REPLACE TEMP MACRO rw_cwl_gain(rel, min_rel, max_rel) AS
    CASE WHEN rel IS NULL THEN 0.0::DOUBLE
         ELSE (least(greatest(greatest(rel::DOUBLE, 0.0), min_rel::DOUBLE), max_rel::DOUBLE) - min_rel::DOUBLE)
              / (max_rel::DOUBLE - min_rel::DOUBLE)
    END;

-- ln(1 - g), 0 where g = 1.
CREATE OR REPLACE TEMP MACRO rw_cwl_log(g) AS CASE WHEN g < 1.0 THEN ln(1.0 - g) ELSE 0.0::DOUBLE END;

-- Per-row steps of the running sums: the gain, ln(1 - g) (0 where g = 1), [g = 1].
CREATE OR REPLACE TEMP MACRO rw_cwl_gain_step(rel, min_rel, max_rel) AS rw_cwl_gain(rel, min_rel, max_rel);
CREATE OR REPLACE TEMP MACRO rw_cwl_log_step(rel, min_rel, max_rel) AS rw_cwl_log(rw_cwl_gain(rel, min_rel, max_rel));
CREATE OR REPLACE TEMP MACRO rw_cwl_zero_step(rel, min_rel, max_rel) AS
    CASE WHEN rw_cwl_gain(rel, min_rel, max_rel) >= 1.0 THEN 1 ELSE 0 END;

-- The discount d(i), 0 beyond depth: 'geometric' a^(i - 1); 'insq' (2a / (i - 1 + 2a))^2;
-- 'cutoff' [i <= a]; 'cutoff_recip' [i <= a] / i; 'log2' [i <= a] / log2(i + 1); 'linear'
-- max(0, 1 - (i - 1) / a) before the last rank (U-measure).
CREATE OR REPLACE TEMP MACRO rw_cwl_discount(rnk, discount, a, depth) AS
    CASE
        WHEN rnk > depth THEN 0.0::DOUBLE
        WHEN discount = 'geometric' THEN pow(a::DOUBLE, rnk::DOUBLE - 1.0)
        WHEN discount = 'insq' THEN pow(2.0 * a::DOUBLE / (rnk::DOUBLE - 1.0 + 2.0 * a::DOUBLE), 2.0)
        WHEN discount = 'cutoff' THEN CASE WHEN rnk <= a THEN 1.0 ELSE 0.0 END
        WHEN discount = 'cutoff_recip' THEN CASE WHEN rnk <= a THEN 1.0 / rnk::DOUBLE ELSE 0.0 END
        WHEN discount = 'log2' THEN CASE WHEN rnk <= a THEN 1.0 / log2(rnk::DOUBLE + 1.0) ELSE 0.0 END
        WHEN discount = 'linear' THEN
            CASE WHEN rnk < depth THEN greatest(0.0, 1.0 - (rnk::DOUBLE - 1.0) / a::DOUBLE) ELSE 0.0 END
    END::DOUBLE;

-- S_i, the survival of the gains above the row: 'none' 1; 'product' prod_{j<i} (1 - g_j), 0
-- once a factor is 0, else exp of the running log with this row's own step taken out;
-- 'threshold' [sum_{j<i} g_j < b].
CREATE OR REPLACE TEMP MACRO rw_cwl_reach(rel, cumgain, cumlog, cumzero, survival, b, min_rel, max_rel) AS
    CASE
        WHEN survival = 'product' THEN
            CASE WHEN cumzero - rw_cwl_zero_step(rel, min_rel, max_rel) > 0 THEN 0.0
                 ELSE exp(cumlog - rw_cwl_log_step(rel, min_rel, max_rel)) END
        WHEN survival = 'threshold' THEN
            CASE WHEN cumgain - rw_cwl_gain(rel, min_rel, max_rel) < b::DOUBLE THEN 1.0 ELSE 0.0 END
        ELSE 1.0
    END::DOUBLE;

-- sum d(i) * S_i * g_i (the expected utility before normalisation).
CREATE OR REPLACE TEMP MACRO rw_cwl_utility(rel, rnk, cumgain, cumlog, cumzero, discount, a, survival, b, min_rel, max_rel, depth) AS
    coalesce(sum(rw_cwl_discount(rnk, discount, a, depth)
                 * rw_cwl_reach(rel, cumgain, cumlog, cumzero, survival, b, min_rel, max_rel)
                 * rw_cwl_gain(rel, min_rel, max_rel)), 0.0)::DOUBLE;

-- sum d(i) * S_i over the ranked rows.
CREATE OR REPLACE TEMP MACRO rw_cwl_examined(rel, rnk, cumgain, cumlog, cumzero, discount, a, survival, b, min_rel, max_rel, depth) AS
    coalesce(sum(rw_cwl_discount(rnk, discount, a, depth)
                 * rw_cwl_reach(rel, cumgain, cumlog, cumzero, survival, b, min_rel, max_rel)), 0.0)::DOUBLE;

-- sum d(i) over the ranked rows.
CREATE OR REPLACE TEMP MACRO rw_cwl_discounted(rnk, discount, a, depth) AS
    coalesce(sum(rw_cwl_discount(rnk, discount, a, depth)), 0.0)::DOUBLE;

-- S after the rows at rank <= depth (1 for none).
CREATE OR REPLACE TEMP MACRO rw_cwl_survival(rel, rnk, survival, b, min_rel, max_rel, depth) AS
    CASE
        WHEN survival = 'product' THEN
            CASE WHEN coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_zero_step(rel, min_rel, max_rel) ELSE 0 END), 0) > 0 THEN 0.0
                 ELSE exp(coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_log_step(rel, min_rel, max_rel) ELSE 0.0 END), 0.0)) END
        WHEN survival = 'threshold' THEN
            CASE WHEN coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_gain(rel, min_rel, max_rel) ELSE 0.0 END), 0.0) < b::DOUBLE
                 THEN 1.0 ELSE 0.0 END
        ELSE 1.0
    END::DOUBLE;

-- sum_{i <= depth} g_i.
CREATE OR REPLACE TEMP MACRO rw_cwl_gain_total(rel, rnk, min_rel, max_rel, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_gain(rel, min_rel, max_rel) ELSE 0.0 END), 0.0)::DOUBLE;
