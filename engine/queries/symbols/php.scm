; Symbol facts for PHP (captures: engine/symbols/plugin.ts). Receivers are rewritten to dotted form by the
; language's normalizeReceiver (`$this->a` -> `this.a`, `Foo::` -> `Foo`, `\A\B` -> `A.B`).

(namespace_definition name: (namespace_name) @package.name)

; Calls: `f()`, `\A\f()`, `$o->m()`, `$o?->m()`, `Foo::m()`, `self::m()`, `parent::m()`, `new Foo()`.
(function_call_expression function: (name) @call.name arguments: (arguments) @call.args)
(function_call_expression function: (qualified_name prefix: (_) @call.receiver (name) @call.name .) arguments: (arguments) @call.args)
(member_call_expression object: (_) @call.receiver name: (name) @call.name arguments: (arguments) @call.args)
(nullsafe_member_call_expression object: (_) @call.receiver name: (name) @call.name arguments: (arguments) @call.args)
(scoped_call_expression scope: (_) @call.receiver name: (name) @call.name arguments: (arguments) @call.args)
(object_creation_expression [(name) (qualified_name)] @call.name (arguments) @call.args) @call.new
(function_call_expression function: (variable_name) @call.dynamic)
(member_call_expression name: (variable_name) @call.dynamic)

; Callables as values: `[$this, 'm']` and `'f'` strings are dynamic; first-class callable syntax `f(...)` is a call.

; Types in declarations.
(simple_parameter type: (_) @type.expr)
(property_promotion_parameter type: (_) @type.expr)
(property_declaration type: (_) @type.expr)
(method_declaration return_type: (_) @type.expr)
(function_definition return_type: (_) @type.expr)
(catch_clause type: (_) @type.expr)
(binary_expression operator: "instanceof" right: (_) @type.expr)

; Supertypes.
(base_clause [(name) (qualified_name)] @super.extends)
(class_interface_clause [(name) (qualified_name)] @super.implements)
(interface_declaration (base_clause [(name) (qualified_name)] @super.extends))
(use_declaration [(name) (qualified_name)] @super.extends)

; Definition attributes.
(method_declaration parameters: (formal_parameters) @def.params)
(function_definition parameters: (formal_parameters) @def.params)
(method_declaration return_type: (_) @def.returns)
(function_definition return_type: (_) @def.returns)
(method_declaration (static_modifier) @def.static)

; Typed names: parameters, promoted constructor properties (fields), typed properties (fields, named without `$`
; as `$this->name` reads them), locals bound to `new`.
(simple_parameter type: (_) @bind.type name: (variable_name) @bind.param)
(property_promotion_parameter type: (_) @bind.type name: (variable_name (name) @bind.field))
(property_declaration type: (_) @bind.type (property_element name: (variable_name (name) @bind.field)))
(assignment_expression left: (variable_name) @bind.local right: (object_creation_expression [(name) (qualified_name)] @bind.new))
(assignment_expression
  left: (member_access_expression object: (variable_name) @_this name: (name) @bind.field)
  right: (object_creation_expression [(name) (qualified_name)] @bind.new)
  (#eq? @_this "$this"))

; Imports: `use` statements (the same specs as engine/languages/php.ts reads).
(namespace_use_declaration) @import.use @import
