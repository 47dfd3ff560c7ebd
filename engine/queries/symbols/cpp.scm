; Symbol facts for C++ (captures: engine/symbols/plugin.ts). Receivers are rewritten to dotted form by the
; language's normalizeReceiver (`a::b` -> `a.b`, `p->f` -> `p.f`).

; Calls: `f()`, `ns::f()`, `T::f()`, `o.f()`, `p->f()`, `this->f()`, `f<T>()`, `new T()`, `T x(...)`.
(call_expression function: (identifier) @call.name arguments: (argument_list) @call.args)
(call_expression function: (qualified_identifier scope: (_) @call.receiver name: (identifier) @call.name) arguments: (argument_list) @call.args)
(call_expression
  function: (qualified_identifier name: (qualified_identifier scope: (_) @call.receiver name: (identifier) @call.name))
  arguments: (argument_list) @call.args)
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name) arguments: (argument_list) @call.args)
(call_expression function: (template_function name: (identifier) @call.name) arguments: (argument_list) @call.args)
(call_expression function: (parenthesized_expression) @call.dynamic)
(new_expression type: (_) @call.name arguments: (argument_list)? @call.args) @call.new
(declaration type: (type_identifier) @call.name declarator: (init_declarator value: (argument_list) @call.args)) @call.new
(declaration type: (qualified_identifier) @call.name declarator: (init_declarator value: (argument_list) @call.args)) @call.new

; Functions used as values: `&f` (a bare name as an argument is nearly always a variable: not matched, for speed).
(pointer_expression argument: (identifier) @value.name)

; Types in definitions and fields (a prototype's parameters are no use: headers are full of them; typed parameters
; of a definition are references through their bindings' patterns below).
(function_definition declarator: (_ parameters: (parameter_list (parameter_declaration type: (_) @type.expr))))
(field_declaration type: (_) @type.expr)
(compound_statement (declaration type: (_) @type.expr))
(function_definition type: (_) @type.expr)

; Supertypes: base classes.
(base_class_clause (type_identifier) @super.extends)
(base_class_clause (qualified_identifier) @super.extends)
(base_class_clause (template_type) @super.extends)

; Definition attributes: an out-of-line member (`double Circle::area() const`) belongs to its class.
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @def.receiver name: (identifier))))
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: (_) @def.receiver name: (identifier)))))
(function_definition declarator: (function_declarator parameters: (parameter_list) @def.params))
(function_definition declarator: (reference_declarator (function_declarator parameters: (parameter_list) @def.params)))
(function_definition declarator: (pointer_declarator declarator: (function_declarator parameters: (parameter_list) @def.params)))
(function_definition type: (_) @def.returns)
(function_definition (storage_class_specifier) @def.static (#eq? @def.static "static"))

; Typed names (parameters of definitions, locals, fields).
(function_definition declarator: (_ parameters: (parameter_list (parameter_declaration type: (_) @bind.type declarator: (identifier) @bind.param))))
(function_definition declarator: (_ parameters: (parameter_list (parameter_declaration type: (_) @bind.type declarator: (reference_declarator (identifier) @bind.param)))))
(function_definition declarator: (_ parameters: (parameter_list (parameter_declaration type: (_) @bind.type declarator: (pointer_declarator declarator: (identifier) @bind.param)))))
(compound_statement (declaration type: (_) @bind.type declarator: (identifier) @bind.local))
(compound_statement (declaration type: (_) @bind.type declarator: (init_declarator declarator: (identifier) @bind.local)))
(compound_statement (declaration type: (_) @bind.type declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @bind.local))))
(declaration type: (placeholder_type_specifier) declarator: (init_declarator declarator: (identifier) @bind.local value: (new_expression type: (_) @bind.new)))
(declaration type: (placeholder_type_specifier) declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @bind.local) value: (new_expression type: (_) @bind.new)))
(field_declaration type: (_) @bind.type declarator: (field_identifier) @bind.field)
(field_declaration type: (_) @bind.type declarator: (pointer_declarator declarator: (field_identifier) @bind.field))

; Untyped local names (lambda parameters, auto locals).
(lambda_expression declarator: (abstract_function_declarator parameters: (parameter_list (parameter_declaration declarator: (identifier) @local))))
