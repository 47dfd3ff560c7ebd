; Symbol facts for C# (captures: engine/symbols/plugin.ts).

(namespace_declaration name: (_) @package.name)
(file_scoped_namespace_declaration name: (_) @package.name)

; Calls: `a.M()`, `this.M()`, `base.M()`, `M()`, generic `M<T>()`, `new T()`, `: base()` / `: this()`.
(invocation_expression
  function: (member_access_expression expression: _ @call.receiver name: (identifier) @call.name)
  arguments: (argument_list) @call.args)
(invocation_expression
  function: (member_access_expression expression: _ @call.receiver name: (generic_name (identifier) @call.name))
  arguments: (argument_list) @call.args)
(invocation_expression function: (identifier) @call.name arguments: (argument_list) @call.args)
(invocation_expression function: (generic_name (identifier) @call.name) arguments: (argument_list) @call.args)
(invocation_expression
  function: (conditional_access_expression (member_binding_expression name: (identifier) @call.name))
  arguments: (argument_list) @call.args)
(object_creation_expression type: (_) @call.name arguments: (argument_list) @call.args) @call.new
(constructor_initializer "base" @call.super (argument_list) @call.args)
(constructor_initializer "this" @call.this (argument_list) @call.args)

; Method groups used as values: `Func<int> f = Util.Parse;`, `handler += OnEvent;`. Arguments are left out: nearly
; every argument is a local or a property, and matching them all cost a fifth of the query's time (Newtonsoft.Json).
(variable_declarator (member_access_expression expression: (_) @value.receiver name: (identifier) @value.name))
(assignment_expression operator: "+=" right: (identifier) @value.name)
(assignment_expression operator: "+=" right: (member_access_expression expression: (_) @value.receiver name: (identifier) @value.name))

; Types in declarations.
(parameter type: (_) @type.expr)
(field_declaration (variable_declaration type: (_) @type.expr))
(property_declaration type: (_) @type.expr)
(local_declaration_statement (variable_declaration type: (_) @type.expr))
(method_declaration returns: (_) @type.expr)
(cast_expression type: (_) @type.expr)
(typeof_expression type: (_) @type.expr)
(is_pattern_expression pattern: (_) @type.expr)
(catch_declaration type: (_) @type.expr)

; Supertypes: the base list does not say which is the class; the resolver labels by the target's kind.
(base_list (_) @super.extends)

; Definition attributes.
(method_declaration parameters: (parameter_list) @def.params)
(constructor_declaration parameters: (parameter_list) @def.params)
(local_function_statement parameters: (parameter_list) @def.params)
(method_declaration returns: (_) @def.returns)
(local_function_statement type: (_) @def.returns)
(method_declaration (modifier "static" @def.static))

; Typed names.
(parameter type: (_) @bind.type name: (identifier) @bind.param)
(local_declaration_statement
  (variable_declaration type: (_) @bind.type (variable_declarator name: (identifier) @bind.local)))
(local_declaration_statement
  (variable_declaration
    (variable_declarator name: (identifier) @bind.local (object_creation_expression type: (_) @bind.new))))
(field_declaration (variable_declaration type: (_) @bind.type (variable_declarator name: (identifier) @bind.field)))
(property_declaration type: (_) @bind.type name: (identifier) @bind.field)
(foreach_statement type: (_) @bind.type left: (identifier) @bind.local)

; Untyped local names (lambda parameters).
(lambda_expression parameters: (implicit_parameter) @local)
(lambda_expression parameters: (parameter_list (parameter !type name: (identifier) @local)))

; Imports (the same spec as engine/languages/csharp.ts reads).
(using_directive (qualified_name) @import.source) @import
(using_directive (identifier) @import.source) @import
