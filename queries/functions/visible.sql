-- visible(text): a value from a trace as text output prints it (render.shown does the same
-- in Python): `—` when missing; control characters (escape sequences, carriage returns,
-- line breaks) written as JSON escapes (`\u001b`, `\r`, `\n`), so that a trace cannot
-- move the cursor, colour the terminal or forge a line of output.
-- @param text VARCHAR  The value.
-- @column result VARCHAR  What to print.
CASE
    WHEN text IS NULL THEN '—'
    WHEN NOT regexp_matches(text, '[\x00-\x1f\x7f-\x9f\x{2028}\x{2029}\x{202a}-\x{202e}\x{2066}-\x{2069}]') THEN text
    ELSE array_to_string(
        list_transform(
            string_split(text, ''),
            lambda c: CASE
                WHEN c = chr(9) THEN '\t'
                WHEN c = chr(10) THEN '\n'
                WHEN c = chr(13) THEN '\r'
                WHEN regexp_matches(c, '[\x00-\x1f\x7f-\x9f\x{2028}\x{2029}\x{202a}-\x{202e}\x{2066}-\x{2069}]')
                    THEN '\u' || lpad(lower(hex(ord(c))), 4, '0')
                ELSE c
            END
        ),
        ''
    )
END
