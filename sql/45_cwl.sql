-- rankwise C/W/L user models (cwl_eval; Moffat et al.; Azzopardi, Thomas & Moffat, SIGIR 2019).
-- A user reads rank 1 and goes on from rank i to i + 1 with probability C_i; the chance of
-- reading rank i is P_i = d(i) * S_i: a discount d of the rank alone (rw_cwl_discount) times a
-- survival S_i of the gains above rank i (rw_cwl_reach). The primitives of
-- rankwise/primitives.py's C/W/L block, with the parameter names of their Polars functions.

-- cwl_eval's gain: (clip(max(rel, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel), unjudged
-- (0; 1 in cwl_eval's best case, its residuals) when unjudged.
CREATE OR REPLACE TEMP MACRO rw_cwl_gain(rel, min_rel, max_rel, unjudged) AS
    CASE WHEN rel IS NULL THEN unjudged::DOUBLE
         ELSE (least(greatest(greatest(rel::DOUBLE, 0.0), min_rel::DOUBLE), max_rel::DOUBLE) - min_rel::DOUBLE)
              / (max_rel::DOUBLE - min_rel::DOUBLE)
    END;

-- ln(1 - g), 0 where g = 1.
CREATE OR REPLACE TEMP MACRO rw_cwl_log(g) AS CASE WHEN g < 1.0 THEN ln(1.0 - g) ELSE 0.0::DOUBLE END;

-- Per-row steps of the running sums: the gain, ln(1 - g) (0 where g = 1), [g = 1].
CREATE OR REPLACE TEMP MACRO rw_cwl_gain_step(rel, min_rel, max_rel, unjudged) AS rw_cwl_gain(rel, min_rel, max_rel, unjudged);
CREATE OR REPLACE TEMP MACRO rw_cwl_log_step(rel, min_rel, max_rel, unjudged) AS rw_cwl_log(rw_cwl_gain(rel, min_rel, max_rel, unjudged));
CREATE OR REPLACE TEMP MACRO rw_cwl_zero_step(rel, min_rel, max_rel, unjudged) AS
    CASE WHEN rw_cwl_gain(rel, min_rel, max_rel, unjudged) >= 1.0 THEN 1 ELSE 0 END;

-- The discount d(i), 0 beyond depth: 'geometric' a^(i - 1); 'insq' (2a / (i - 1 + 2a))^2;
-- 'cutoff' [i <= a]; 'cutoff_recip' [i <= a] / i; 'log2' [i <= a] / log2(i + 1); 'linear'
-- max(0, 1 - (i - 1) / a) before the last rank (U-measure).
CREATE OR REPLACE TEMP MACRO rw_cwl_discount(rnk, shape, a, depth) AS
    CASE
        WHEN rnk > depth THEN 0.0::DOUBLE
        WHEN shape = 'geometric' THEN pow(a::DOUBLE, rnk::DOUBLE - 1.0)
        WHEN shape = 'insq' THEN pow(2.0 * a::DOUBLE / (rnk::DOUBLE - 1.0 + 2.0 * a::DOUBLE), 2.0)
        WHEN shape = 'cutoff' THEN CASE WHEN rnk <= a THEN 1.0 ELSE 0.0 END
        WHEN shape = 'cutoff_recip' THEN CASE WHEN rnk <= a THEN 1.0 / rnk::DOUBLE ELSE 0.0 END
        WHEN shape = 'log2' THEN CASE WHEN rnk <= a THEN 1.0 / log2(rnk::DOUBLE + 1.0) ELSE 0.0 END
        WHEN shape = 'linear' THEN
            CASE WHEN rnk < depth THEN greatest(0.0, 1.0 - (rnk::DOUBLE - 1.0) / a::DOUBLE) ELSE 0.0 END
    END::DOUBLE;

-- S_i, the survival of the gains above the row: 'none' 1; 'product' prod_{j<i} (1 - g_j), 0
-- once a factor is 0, else exp of the running log with this row's own step taken out.
CREATE OR REPLACE TEMP MACRO rw_cwl_reach(rel, cumlog, cumzero, survival, min_rel, max_rel, unjudged) AS
    CASE
        WHEN survival = 'product' THEN
            CASE WHEN cumzero - rw_cwl_zero_step(rel, min_rel, max_rel, unjudged) > 0 THEN 0.0
                 ELSE exp(cumlog - rw_cwl_log_step(rel, min_rel, max_rel, unjudged)) END
        ELSE 1.0
    END::DOUBLE;

-- sum d(i) * S_i * g_i (the expected utility before normalisation).
CREATE OR REPLACE TEMP MACRO rw_cwl_utility(rel, rnk, cumlog, cumzero, shape, a, survival, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(rw_cwl_discount(rnk, shape, a, depth)
                 * rw_cwl_reach(rel, cumlog, cumzero, survival, min_rel, max_rel, unjudged)
                 * rw_cwl_gain(rel, min_rel, max_rel, unjudged)), 0.0)::DOUBLE;

-- sum d(i) * S_i over the ranked rows.
-- (times c_i, the row's cost, when costed: the expected cost before normalisation).
CREATE OR REPLACE TEMP MACRO rw_cwl_weight(cost, costed) AS CASE WHEN costed THEN cost ELSE 1.0 END::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_examined(rel, rnk, cost, cumlog, cumzero, shape, a, survival, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(rw_cwl_discount(rnk, shape, a, depth)
                 * rw_cwl_reach(rel, cumlog, cumzero, survival, min_rel, max_rel, unjudged)
                 * rw_cwl_weight(cost, costed)), 0.0)::DOUBLE;

-- sum d(i) over the ranked rows.
CREATE OR REPLACE TEMP MACRO rw_cwl_discounted(rnk, shape, a, depth) AS
    coalesce(sum(rw_cwl_discount(rnk, shape, a, depth)), 0.0)::DOUBLE;

-- d(m + 1), m the ranked rows at rank <= depth (the first padded rank's discount).
CREATE OR REPLACE TEMP MACRO rw_cwl_next_discount(rnk, shape, a, depth) AS
    rw_cwl_discount((count(*) FILTER (WHERE rnk <= depth)) + 1, shape, a, depth);

-- S after the rows at rank <= depth (1 for none).
CREATE OR REPLACE TEMP MACRO rw_cwl_survival(rel, rnk, survival, min_rel, max_rel, unjudged, depth) AS
    CASE
        WHEN survival = 'product' THEN
            CASE WHEN coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_zero_step(rel, min_rel, max_rel, unjudged) ELSE 0 END), 0) > 0 THEN 0.0
                 ELSE exp(coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_log_step(rel, min_rel, max_rel, unjudged) ELSE 0.0 END), 0.0)) END
        ELSE 1.0
    END::DOUBLE;

-- sum_{i <= depth} c_i.
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_total(rnk, cost, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth THEN cost ELSE 0.0 END), 0.0)::DOUBLE;

-- sum_{i <= depth} g_i.
CREATE OR REPLACE TEMP MACRO rw_cwl_gain_total(rel, rnk, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_gain(rel, min_rel, max_rel, unjudged) ELSE 0.0 END), 0.0)::DOUBLE;

-- INST (Moffat, Bailey, Scholer & Thomas 2015): C_i = ((i + 2T - G_i - 1) / (i + 2T - G_i))^2, G_i
-- the running gain cumgain (as cwl_eval writes it); its running log and count of zero factors
-- sum steps of the running gain.
CREATE OR REPLACE TEMP MACRO rw_inst_continue(rnk, cumgain, target) AS
    pow((rnk::DOUBLE + target::DOUBLE + (target::DOUBLE - cumgain) - 1.0) / (rnk::DOUBLE + target::DOUBLE + (target::DOUBLE - cumgain)), 2.0);
CREATE OR REPLACE TEMP MACRO rw_inst_log_step(rnk, cumgain, target) AS
    CASE WHEN rw_inst_continue(rnk, cumgain, target) > 0.0 THEN ln(rw_inst_continue(rnk, cumgain, target)) ELSE 0.0::DOUBLE END;
CREATE OR REPLACE TEMP MACRO rw_inst_zero_step(rnk, cumgain, target) AS
    CASE WHEN rw_inst_continue(rnk, cumgain, target) <= 0.0 THEN 1 ELSE 0 END;

-- P_i = prod_{j<i} C_j: 0 once a factor is 0, else from the running log without the row's own.
CREATE OR REPLACE TEMP MACRO rw_inst_reach(rnk, cumgain, cumlog, cumzero, target) AS
    CASE WHEN cumzero - rw_inst_zero_step(rnk, cumgain, target) > 0 THEN 0.0::DOUBLE
         ELSE exp(cumlog - rw_inst_log_step(rnk, cumgain, target)) END;

-- sum_{i <= depth} P_i * g_i, and sum_{i <= depth} P_i.
CREATE OR REPLACE TEMP MACRO rw_inst_utility(rel, rnk, cumgain, cumlog, cumzero, target, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth
                      THEN rw_inst_reach(rnk, cumgain, cumlog, cumzero, target) * rw_cwl_gain(rel, min_rel, max_rel, unjudged)
                      ELSE 0.0 END), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_inst_examined(rel, rnk, cost, cumgain, cumlog, cumzero, target, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(CASE WHEN rnk <= depth
                      THEN rw_inst_reach(rnk, cumgain, cumlog, cumzero, target) * rw_cwl_weight(cost, costed)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- The trigamma function psi1(x) = sum_{t >= 0} 1 / (x + t)^2 for x > 0: ten terms, then the
-- asymptotic series at x + 10.
CREATE OR REPLACE TEMP MACRO rw_trigamma_series(y) AS
    1.0 / y + 1.0 / (2.0 * y * y)
    + (1.0::DOUBLE / 6.0 + (1.0 / (y * y)) * (-1.0::DOUBLE / 30.0 + (1.0 / (y * y)) * (1.0::DOUBLE / 42.0 + (1.0 / (y * y)) * (-1.0::DOUBLE / 30.0
       + (1.0 / (y * y)) * (5.0::DOUBLE / 66.0 + (1.0 / (y * y)) * (-691.0::DOUBLE / 2730.0)))))) / (y * y * y);
CREATE OR REPLACE TEMP MACRO rw_trigamma(x) AS
    1.0 / pow(x, 2.0) + 1.0 / pow(x + 1.0, 2.0) + 1.0 / pow(x + 2.0, 2.0) + 1.0 / pow(x + 3.0, 2.0)
    + 1.0 / pow(x + 4.0, 2.0) + 1.0 / pow(x + 5.0, 2.0) + 1.0 / pow(x + 6.0, 2.0) + 1.0 / pow(x + 7.0, 2.0)
    + 1.0 / pow(x + 8.0, 2.0) + 1.0 / pow(x + 9.0, 2.0) + rw_trigamma_series(x + 10.0);

-- Over the rows at rank <= depth (m of them, gain G_m): P_{m+1}, m, and a = 2T - G_m.
CREATE OR REPLACE TEMP MACRO rw_inst_after_reach(rnk, cumgain, target, depth) AS
    CASE WHEN coalesce(sum(CASE WHEN rnk <= depth THEN rw_inst_zero_step(rnk, cumgain, target) ELSE 0 END), 0) > 0 THEN 0.0
         ELSE exp(coalesce(sum(CASE WHEN rnk <= depth THEN rw_inst_log_step(rnk, cumgain, target) ELSE 0.0 END), 0.0)) END;
CREATE OR REPLACE TEMP MACRO rw_inst_after_m(rnk, depth) AS (count(*) FILTER (WHERE rnk <= depth))::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth) AS
    2.0 * target::DOUBLE - coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_gain(rel, min_rel, max_rel, unjudged) ELSE 0.0 END), 0.0);

-- sum_{m < i <= depth} P_i over the padding: of gain 0, P_{m+1} (m + a)^2 (psi1(m + a) - psi1(depth + a));
-- of gain 1 (unjudged = 1), C = ((m + a - 1) / (m + a))^2 at every padded rank: P_{m+1} (1 - C^(depth - m)) / (1 - C).
CREATE OR REPLACE TEMP MACRO rw_inst_pad_c(x) AS pow((x - 1.0) / x, 2.0);
CREATE OR REPLACE TEMP MACRO rw_inst_pad_sum(start, stop, unjudged) AS
    CASE WHEN unjudged = 0 THEN pow(start, 2.0) * (rw_trigamma(start) - rw_trigamma(stop))
         WHEN rw_inst_pad_c(start) = 1.0 THEN stop - start
         ELSE (1.0 - pow(rw_inst_pad_c(start), stop - start)) / (1.0 - rw_inst_pad_c(start)) END;
CREATE OR REPLACE TEMP MACRO rw_inst_tail(rel, rnk, cumgain, target, min_rel, max_rel, unjudged, depth) AS
    (rw_inst_after_reach(rnk, cumgain, target, depth)
     * rw_inst_pad_sum(rw_inst_after_m(rnk, depth) + rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth),
                       depth::DOUBLE + rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth), unjudged))::DOUBLE;

-- P_{depth+1}: P_{m+1} ((m + a) / (depth + a))^2 (padding of gain 0), P_{m+1} C^(depth - m) (gain 1).
CREATE OR REPLACE TEMP MACRO rw_inst_pad_end(start, stop, unjudged) AS
    CASE WHEN unjudged = 0 THEN pow(start / stop, 2.0) ELSE pow(rw_inst_pad_c(start), stop - start) END;
CREATE OR REPLACE TEMP MACRO rw_inst_end(rel, rnk, cumgain, target, min_rel, max_rel, unjudged, depth) AS
    (rw_inst_after_reach(rnk, cumgain, target, depth)
     * rw_inst_pad_end(rw_inst_after_m(rnk, depth) + rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth),
                       depth::DOUBLE + rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth), unjudged))::DOUBLE;

-- BPM (Zhang et al. 2017), as cwl_eval: the user goes on from rank i while G_i < T_i and i < k,
-- T_i = target + hb (G_{i-1} - (i - 1) gain_med) (hb = 0: the static model), G = cumgain.
-- 1 where G_i >= T_i (a failure: the user has the gain wanted).
CREATE OR REPLACE TEMP MACRO rw_bpm_fail_step(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged) AS
    CASE WHEN cumgain >= target::DOUBLE + hb::DOUBLE * ((cumgain - rw_cwl_gain(rel, min_rel, max_rel, unjudged))
                                                        - (rnk::DOUBLE - 1.0) * gain_med::DOUBLE)
         THEN 1 ELSE 0 END;

-- P_i = [i <= k] [no failure above] (0 beyond depth).
CREATE OR REPLACE TEMP MACRO rw_bpm_reach(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth) AS
    CASE WHEN above < k AND rnk <= depth
              AND cumfail - rw_bpm_fail_step(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged) = 0
         THEN 1.0 ELSE 0.0 END::DOUBLE;

-- sum_{i <= depth} P_i g_i, and sum_{i <= depth} P_i.
CREATE OR REPLACE TEMP MACRO rw_bpm_utility(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(rw_bpm_reach(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth)
                 * rw_cwl_gain(rel, min_rel, max_rel, unjudged)), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_examined(rel, rnk, cost, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(rw_bpm_reach(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth)
                 * rw_cwl_weight(cost, costed)), 0.0)::DOUBLE;

-- Over the rows at rank <= depth (m of them, gain G_m): S = 1 when none failed; the first
-- failing rank j* of the padding (gain u = unjudged there, G_i = G_m + (i - m) u: fails where
-- beta (i - 1) + alpha >= 0, beta = u (1 - hb) + hb gain_med, alpha = (1 - hb) (G_m - m u) + u - target;
-- when beta <= 0, at m + 1 if it fails there, else never).
CREATE OR REPLACE TEMP MACRO rw_bpm_survive(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged, depth) AS
    CASE WHEN coalesce(sum(CASE WHEN rnk <= depth
                                THEN rw_bpm_fail_step(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged)
                                ELSE 0 END), 0) = 0 THEN 1.0 ELSE 0.0 END::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_m(rnk, depth) AS (count(*) FILTER (WHERE rnk <= depth))::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_gain(rel, min_rel, max_rel, unjudged) ELSE 0.0 END), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_pad_rate(hb, gain_med, unjudged) AS
    unjudged::DOUBLE * (1.0 - hb::DOUBLE) + hb::DOUBLE * gain_med::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_first_fail(rel, rnk, target, hb, gain_med, min_rel, max_rel, unjudged, depth) AS
    CASE
        WHEN rw_bpm_pad_rate(hb, gain_med, unjudged) > 0 THEN
            greatest(rw_bpm_m(rnk, depth) + 1.0,
                     ceil(-((1.0 - hb::DOUBLE) * (rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth)
                                                  - rw_bpm_m(rnk, depth) * unjudged::DOUBLE)
                            + unjudged::DOUBLE - target::DOUBLE)
                          / rw_bpm_pad_rate(hb, gain_med, unjudged)) + 1.0)
        WHEN rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth) + unjudged::DOUBLE
             >= target::DOUBLE + hb::DOUBLE * (rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth)
                                               - rw_bpm_m(rnk, depth) * gain_med::DOUBLE)
            THEN rw_bpm_m(rnk, depth) + 1.0
        ELSE NULL
    END::DOUBLE;

-- the last padded rank the cost budget reaches: m + ceil(k - K_m), K_m the costs of the rows at
-- rank <= depth (each padded document costs 1: k when every document costs 1).
CREATE OR REPLACE TEMP MACRO rw_bpm_last(rnk, cost, k, depth) AS
    (rw_bpm_m(rnk, depth) + ceil(k::DOUBLE - coalesce(sum(CASE WHEN rnk <= depth THEN cost ELSE 0.0 END), 0.0)))::DOUBLE;

-- sum_{m < i <= depth} P_i = S max(0, min(depth, m + ceil(k - K_m), j*) - m) over the padding (j* NULL: never).
CREATE OR REPLACE TEMP MACRO rw_bpm_tail(rel, rnk, cost, cumgain, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth) AS
    (rw_bpm_survive(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged, depth)
     * greatest(0.0, least(least(depth::DOUBLE, rw_bpm_last(rnk, cost, k, depth)),
                           coalesce(rw_bpm_first_fail(rel, rnk, target, hb, gain_med, min_rel, max_rel, unjudged, depth),
                                    depth::DOUBLE))
                     - rw_bpm_m(rnk, depth)))::DOUBLE;

-- P_{depth+1} = S [depth < m + ceil(k - K_m)] [depth + 1 <= j*].
CREATE OR REPLACE TEMP MACRO rw_bpm_end(rel, rnk, cost, cumgain, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth) AS
    (rw_bpm_survive(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged, depth)
     * CASE WHEN depth < rw_bpm_last(rnk, cost, k, depth)
                 AND coalesce(rw_bpm_first_fail(rel, rnk, target, hb, gain_med, min_rel, max_rel, unjudged, depth)
                              >= depth + 1.0, true)
            THEN 1.0 ELSE 0.0 END)::DOUBLE;

-- IFT (Azzopardi, Thomas & Craswell 2018), as cwl_eval: C_i = C1_i C2_i, the goal C1 = 1 - 1 / (1 +
-- b1 e^((target - G_i) r1)) (goal) and the rate C2 = 1 / (1 + b2 e^((rate_a - G_i / K_i) r2)) (rate), G
-- the running gain, K the running cost cumcost (i when each document costs 1); ln C1 = -softplus(-(target
-- - G) r1 - ln b1), ln C2 = -softplus((rate_a - G / K) r2 + ln b2), softplus(z) = ln(1 + e^z) without
-- overflow. K = 0 (every document down to rank i costs 0): G > 0 and r2 > 0 make the rate +infinity,
-- ln C2 = 0 (as cwl_eval); G = 0 (0 / 0) or r2 = 0 (inf * 0) make cwl_eval's C2 NaN: an error.
CREATE OR REPLACE TEMP MACRO rw_softplus(z) AS greatest(z, 0.0) + ln(1.0 + exp(-abs(z)));
CREATE OR REPLACE TEMP MACRO rw_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    ((CASE WHEN goal THEN -rw_softplus(-(target::DOUBLE - cumgain) * r1::DOUBLE - ln(b1::DOUBLE)) ELSE 0.0 END)
     + (CASE WHEN NOT rate THEN 0.0
             WHEN cumcost > 0.0 THEN -rw_softplus((rate_a::DOUBLE - cumgain / cumcost::DOUBLE) * r2::DOUBLE + ln(b2::DOUBLE))
             WHEN cumgain > 0.0 AND r2 > 0.0 THEN 0.0
             ELSE error('rankwise: the rate of gain G_i / K_i of IFTRate and IFTGoalRate is undefined: the first-ranked document '
                        || 'of a query has cost 0 (the run''s cost column) and gain 0 (0 / 0), or cost 0 with R2 = 0 '
                        || '(inf * 0), where cwl_eval gives NaN; give it a positive cost')
        END))::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cost_step(cost) AS cost::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_ift_log_step(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    rw_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2);

-- P_i = exp(sum_{j<i} ln C_j).
CREATE OR REPLACE TEMP MACRO rw_ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    exp(cumlog - rw_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2));

-- sum_{i <= depth} P_i g_i, and sum_{i <= depth} P_i.
CREATE OR REPLACE TEMP MACRO rw_ift_utility(rel, rnk, cumgain, cumcost, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth
                      THEN rw_ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
                           * rw_cwl_gain(rel, min_rel, max_rel, unjudged)
                      ELSE 0.0 END), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_ift_examined(rel, rnk, cost, cumgain, cumcost, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(CASE WHEN rnk <= depth
                      THEN rw_ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
                           * rw_cwl_weight(cost, costed)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- 1 - C, without subtracting from 1 (C near 1 would lose its digits): with ln C1 = -softplus(-z1),
-- 1 - C1 = e^(-softplus(z1)), 1 - C2 likewise, and 1 - C1 C2 = (1 - C1) + C1 (1 - C2), a sum of
-- nonnegative terms (K = 0: 1 - C2 = 0 where C2 = 1; where the rate is undefined rw_ift_log refuses).
CREATE OR REPLACE TEMP MACRO rw_ift_stop(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    ((CASE WHEN goal THEN exp(-rw_softplus((target::DOUBLE - cumgain) * r1::DOUBLE + ln(b1::DOUBLE))) ELSE 0.0 END)
     + (CASE WHEN goal THEN exp(-rw_softplus(-(target::DOUBLE - cumgain) * r1::DOUBLE - ln(b1::DOUBLE))) ELSE 1.0 END)
       * (CASE WHEN rate AND cumcost > 0.0
               THEN exp(-rw_softplus(-(rate_a::DOUBLE - cumgain / cumcost::DOUBLE) * r2::DOUBLE - ln(b2::DOUBLE)))
               ELSE 0.0 END))::DOUBLE;

-- The padded ranks i = m + 1 .. depth (gain unjudged and cost 1 there, G_i = G_m + (i - m) unjudged,
-- K_i = K_m + i - m) are walked from rank m (the list is never empty) with the state (p: P_i, v: a
-- sum so far, g: G_m, k: K_m, m), which starts at P_{m+1} = exp(sum over the rows of ln C), v = 0.
CREATE OR REPLACE TEMP MACRO rw_ift_start(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth) AS
    struct_pack(
        p := exp(coalesce(sum(CASE WHEN rnk <= depth
                                   THEN rw_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2)
                                   ELSE 0.0 END), 0.0))::DOUBLE,
        v := 0.0::DOUBLE,
        g := rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth),
        k := rw_cwl_cost_total(rnk, cost, depth),
        m := rw_bpm_m(rnk, depth));

-- K_i and G_i at the padded rank i of the walk's state.
CREATE OR REPLACE TEMP MACRO rw_ift_pad_cost(acc, i) AS acc.k + (i::DOUBLE - acc.m);
CREATE OR REPLACE TEMP MACRO rw_ift_pad_gain(acc, i, unjudged) AS acc.g + (i::DOUBLE - acc.m) * unjudged::DOUBLE;

-- The walk's next state at the padded rank i: P_{i+1} = P_i C_i, v + ``term`` (its value at rank i).
CREATE OR REPLACE TEMP MACRO rw_ift_step(acc, i, term, unjudged, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    struct_pack(
        p := acc.p * exp(rw_ift_log(rw_ift_pad_cost(acc, i), rw_ift_pad_gain(acc, i, unjudged),
                                    goal, rate, target, b1, r1, rate_a, b2, r2)),
        v := acc.v + term, g := acc.g, k := acc.k, m := acc.m);

-- sum_{m < i <= depth} P_i over the padding.
CREATE OR REPLACE TEMP MACRO rw_ift_tail(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth) AS
    (list_reduce(
        generate_series(rw_bpm_m(rnk, depth)::BIGINT, depth::BIGINT),
        lambda acc, i: CASE WHEN i::DOUBLE > acc.m
            THEN rw_ift_step(acc, i, acc.p, unjudged, goal, rate, target, b1, r1, rate_a, b2, r2)
            ELSE acc END,
        rw_ift_start(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth))).v;

-- The padding's part of rw_ift_total: sum_{m < i <= depth} P_i (1 - C_i) G_i (K_i when costed), a
-- walk of its own (DuckDB would not share one walk between the two values).
CREATE OR REPLACE TEMP MACRO rw_ift_stop_tail(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth, costed) AS
    (list_reduce(
        generate_series(rw_bpm_m(rnk, depth)::BIGINT, depth::BIGINT),
        lambda acc, i: CASE WHEN i::DOUBLE > acc.m
            THEN rw_ift_step(acc, i,
                             acc.p * rw_ift_stop(rw_ift_pad_cost(acc, i), rw_ift_pad_gain(acc, i, unjudged),
                                                 goal, rate, target, b1, r1, rate_a, b2, r2)
                             * (CASE WHEN costed THEN rw_ift_pad_cost(acc, i) ELSE rw_ift_pad_gain(acc, i, unjudged) END),
                             unjudged, goal, rate, target, b1, r1, rate_a, b2, r2)
            ELSE acc END,
        rw_ift_start(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth))).v;

-- sum_{i <= depth} P_i (1 - C_i) G_i (K_i, costed: cwl_eval's ETU, ETC as it sums them) over the
-- ranked rows and the padding.
CREATE OR REPLACE TEMP MACRO rw_ift_total(rel, rnk, cost, cumgain, cumcost, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth, costed) AS
    (coalesce(sum(CASE WHEN rnk <= depth
                       THEN rw_ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
                            * rw_ift_stop(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2)
                            * (CASE WHEN costed THEN cumcost::DOUBLE ELSE cumgain END)
                       ELSE 0.0 END), 0.0)
     + rw_ift_stop_tail(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth, costed))::DOUBLE;

-- U-measure and TBG place a document by the costs of the documents above it, K_{i-1} (a window
-- over the query's ranked rows): d(1 + K) is 'geometric' a^K, 'linear' max(0, 1 - K / a) before
-- the last rank; cut by rank at depth. The padding (cost 1 a document) in closed form.
CREATE OR REPLACE TEMP MACRO rw_cost_above(cost, rnk, qid) AS
    coalesce(sum(cost) OVER (PARTITION BY qid ORDER BY rnk ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0.0);
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_discount(rnk, above, shape, a, depth) AS
    CASE
        WHEN rnk > depth THEN 0.0
        WHEN shape = 'geometric' THEN pow(a, above)
        WHEN shape = 'linear' THEN CASE WHEN rnk < depth THEN greatest(0.0, 1.0 - above / a) ELSE 0.0 END
    END::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_utility(rel, rnk, above, shape, a, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(rw_cwl_cost_discount(rnk, above, shape, a, depth) * rw_cwl_gain(rel, min_rel, max_rel, unjudged)), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_examined(rel, rnk, cost, above, shape, a, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(rw_cwl_cost_discount(rnk, above, shape, a, depth) * rw_cwl_weight(cost, costed)), 0.0)::DOUBLE;
-- the padded ranks' sum from m (ranked rows at rank <= depth) and k (their costs); no padded rank
-- (j = 0) sums to 0, also where k / a overflows (a tiny L)
CREATE OR REPLACE TEMP MACRO rw_cwl_linear_pad(j, k, a) AS (CASE WHEN j > 0 THEN j * (1.0 - k / a) - j * (j - 1.0) / (2.0 * a) ELSE 0.0 END)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_pad(m, k, shape, a, depth) AS
    CASE
        WHEN shape = 'geometric' AND a = 1.0 THEN depth - m
        WHEN shape = 'geometric' THEN pow(a, k) * (1.0 - pow(a, depth - m)) / (1.0 - a)
        WHEN shape = 'linear' THEN rw_cwl_linear_pad(least(greatest(ceil(a - k), 0.0), greatest(depth - m - 1.0, 0.0)), k, a)
    END::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_tail(rnk, cost, shape, a, depth) AS
    rw_cwl_cost_pad((count(*) FILTER (WHERE rnk <= depth))::DOUBLE,
                    coalesce(sum(CASE WHEN rnk <= depth THEN cost ELSE 0.0 END), 0.0), shape, a, depth);
