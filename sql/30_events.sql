-- rankwise gains from interaction events: an event log (query_id, doc_id, event) becomes
-- qrels (query_id, doc_id, relevance). gains is a MAP event -> gain; a pair takes the largest
-- gain of its events (agg 'max') or their sum (agg 'sum'). An event without a gain is an
-- error unless default_gain is given.
--   SELECT * FROM rw_gains_from_events('clicks', MAP {'view': 1, 'wishlist': 3, 'cart': 5, 'purchase': 10});
CREATE OR REPLACE TEMP MACRO rw_gains_from_events(events_table, gains, agg := 'max', default_gain := NULL) AS TABLE
    WITH g AS (
        SELECT query_id, doc_id,
            CASE
                WHEN map_contains(gains, event) THEN map_extract_value(gains, event)::DOUBLE
                WHEN default_gain IS NOT NULL THEN default_gain::DOUBLE
                ELSE error('rankwise: event ''' || event || ''' has no gain in the mapping; add it or pass default_gain')
            END AS gain
        FROM query_table(events_table)
        WHERE event IS NOT NULL
    )
    SELECT query_id, doc_id, CASE WHEN agg = 'sum' THEN sum(gain) ELSE max(gain) END AS relevance
    FROM g
    GROUP BY query_id, doc_id
    ORDER BY query_id, doc_id;
