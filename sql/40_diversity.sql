-- rankwise diversity (intent-aware) primitives: aggregates over (document, subtopic) pairs, the
-- relevant judgments (relevance >= t) of subtopic qrels, used in a GROUP BY query_id over
--   the run's pairs:           rnk (the document's rank), cov (documents ranked above that
--                              cover the same subtopic), nsub (relevant documents of it);
--   the greedy ideal's pairs:  the same columns in ndeval's greedy ideal ranking;
--   the relevant judgments:    sub (the subtopic).
-- t is the threshold that chose the pairs (the compiler's); the macros do not read it.
-- (rankwise/primitives.py: IntentGain, IdealIntentGain, IntentHits, IntentNew, IntentApSum,
-- Subtopics.)

-- The rank weight of an intent gain: 1 / log2(rank + 1), 1 / rank, or beta^(rank - 1).
CREATE OR REPLACE TEMP MACRO rw_intent_weight(rnk, weight, beta) AS
    CASE weight WHEN 'log2' THEN 1.0 / log2(rnk + 1.0) WHEN 'rank' THEN 1.0 / rnk ELSE pow(beta, rnk - 1.0) END;

-- Σ over pairs at rank <= k of (1 - alpha)^cov · w(rank) (α-DCG, ERR-IA, NRBP).
CREATE OR REPLACE TEMP MACRO rw_intent_gain(rnk, cov, t, k, alpha, weight, beta) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN pow(1.0 - alpha, cov) * rw_intent_weight(rnk, weight, beta)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- The same over the greedy ideal's pairs.
CREATE OR REPLACE TEMP MACRO rw_ideal_intent_gain(rnk, cov, t, k, alpha, weight, beta) AS
    rw_intent_gain(rnk, cov, t, k, alpha, weight, beta);

-- Number of pairs at rank <= k (P-IA's count).
CREATE OR REPLACE TEMP MACRO rw_intent_hits(rnk, t, k) AS
    (count(*) FILTER (WHERE rw_within(rnk, k)))::DOUBLE;

-- Number of subtopics first covered at rank <= k (subtopic recall's count).
CREATE OR REPLACE TEMP MACRO rw_intent_new(rnk, cov, t, k) AS
    (count(*) FILTER (WHERE rw_within(rnk, k) AND cov = 0))::DOUBLE;

-- Σ over pairs of (cov + 1) / (rank · nsub): Σ over subtopics of their AP (MAP-IA's sum).
CREATE OR REPLACE TEMP MACRO rw_intent_ap_sum(rnk, cov, nsub, t) AS
    coalesce(sum((cov + 1.0) / (rnk * 1.0 * nsub)), 0.0)::DOUBLE;

-- Number of subtopics with a relevant judgment (ndeval's "actual subtopics").
CREATE OR REPLACE TEMP MACRO rw_subtopics(sub, t) AS count(DISTINCT sub)::DOUBLE;

-- One row, ok = true, or an error naming the first fault of subtopic qrels (query_id,
-- subtopic, doc_id, relevance): a NULL subtopic, a NULL, NaN or infinite relevance (checked
-- row by row: the qrels per document, each document's largest relevance over its subtopics,
-- which rw_check_qrels checks, would hide a NaN or a negative infinity), or a document judged
-- twice for one subtopic of a query.
CREATE OR REPLACE TEMP MACRO rw_check_subtopics(subtopics_table, subtopic_name := 'subtopic', relevance_name := 'relevance') AS TABLE
    WITH rw_triples AS (
        SELECT query_id, subtopic, doc_id, count(*) AS n,
            sum(CASE WHEN rw_bad_relevance(relevance) THEN 1 ELSE 0 END) AS bad
        FROM query_table(subtopics_table)
        GROUP BY query_id, subtopic, doc_id
    ),
    rw_faults AS (
        SELECT min(CASE WHEN subtopic IS NULL THEN rw_quoted(query_id) END) AS null_subtopic,
            min(CASE WHEN bad > 0 THEN rw_quoted(query_id) END) AS null_value,
            min(CASE WHEN n > 1 AND subtopic IS NOT NULL THEN rw_quoted(doc_id) || ' more than once for subtopic '
                || rw_quoted(subtopic) || ' of query ' || rw_quoted(query_id) END) AS duplicate
        FROM rw_triples
    )
    SELECT CASE
        WHEN null_subtopic IS NOT NULL THEN error('rankwise: the qrels'' subtopic column ' || subtopic_name
            || ' holds NULL values (query ' || null_subtopic || ')')
        WHEN null_value IS NOT NULL THEN error('rankwise: the qrels'' column ' || relevance_name
            || ' holds a non-finite value (NULL, NaN or infinite) (query ' || null_value || ')')
        WHEN duplicate IS NOT NULL THEN error('rankwise: the qrels judge document ' || duplicate)
        ELSE true
    END AS ok
    FROM rw_faults;
