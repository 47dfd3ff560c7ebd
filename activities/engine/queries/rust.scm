(function_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.struct
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item type: (_) @name) @definition.impl
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.function

(use_declaration argument: (_) @import.use) @import
(mod_item !body name: (identifier) @import.mod) @import
(extern_crate_declaration name: (identifier) @import.crate) @import

(function_item (visibility_modifier) name: (identifier) @export.name)
(struct_item (visibility_modifier) name: (type_identifier) @export.name)
(enum_item (visibility_modifier) name: (type_identifier) @export.name)
(trait_item (visibility_modifier) name: (type_identifier) @export.name)
(type_item (visibility_modifier) name: (type_identifier) @export.name)
(const_item (visibility_modifier) name: (identifier) @export.name)
(static_item (visibility_modifier) name: (identifier) @export.name)
(mod_item (visibility_modifier) name: (identifier) @export.name)
