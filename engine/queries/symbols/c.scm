; Symbol facts for C (captures: engine/symbols/plugin.ts).

; Calls: `f(x)`, `s->f(x)` / `s.f(x)` through function pointers are dynamic.
(call_expression function: (identifier) @call.name arguments: (argument_list) @call.args)
(call_expression function: (field_expression) @call.dynamic)
(call_expression function: (parenthesized_expression) @call.dynamic)

; Functions used as values: `qsort(a, n, size, cmp)`, `.handler = on_event`, `fp = f`.
(argument_list (identifier) @value.name)
(initializer_pair value: (identifier) @value.name)
(assignment_expression right: (identifier) @value.name)

; Types in declarations.
(parameter_declaration type: (type_identifier) @type.expr)
(parameter_declaration type: (struct_specifier name: (type_identifier) @type.expr))
(declaration type: (type_identifier) @type.expr)
(declaration type: (struct_specifier name: (type_identifier) @type.expr))
(function_definition type: (type_identifier) @type.expr)
(function_definition type: (struct_specifier name: (type_identifier) @type.expr))

; Definition attributes.
(function_definition declarator: (function_declarator parameters: (parameter_list) @def.params))
(function_definition declarator: (pointer_declarator declarator: (function_declarator parameters: (parameter_list) @def.params)))

; Untyped local names are not needed: C calls a local only through a pointer (dynamic above).
(parameter_declaration declarator: (identifier) @local)
(declaration declarator: (identifier) @local)
(init_declarator declarator: (identifier) @local)
