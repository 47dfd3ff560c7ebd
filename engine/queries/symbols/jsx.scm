; JSX: a component element is a call of the component; an intrinsic element (a lower-case name: `<div>`) is an HTML
; tag, never a function of the repository (preact: 77 unique-name guesses of test helpers named div, p, h1 ...).
((jsx_opening_element name: (identifier) @call.name) (#match? @call.name "^[^a-z]"))
((jsx_self_closing_element name: (identifier) @call.name) (#match? @call.name "^[^a-z]"))
(jsx_opening_element name: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name))
(jsx_self_closing_element name: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name))
(jsx_expression (identifier) @value.name)
(jsx_expression (member_expression object: (_) @value.receiver property: (property_identifier) @value.name))
