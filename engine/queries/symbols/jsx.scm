; JSX: a component element is a call of the component (intrinsic lower-case elements are dropped by the resolver).
(jsx_opening_element name: (identifier) @call.name)
(jsx_self_closing_element name: (identifier) @call.name)
(jsx_opening_element name: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name))
(jsx_self_closing_element name: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name))
(jsx_expression (identifier) @value.name)
(jsx_expression (member_expression object: (_) @value.receiver property: (property_identifier) @value.name))
