// The type of a record its schema parses, limited to the fields the schema names.
/**
 * A record's type exactly as its schema names it: the schemas parse the service's answers loosely (a field added
 * later still parses), but code reading them may use only the fields they name, so a misspelt field is a compile
 * error rather than `undefined` at run time.
 */
export type Exact<T> = T extends readonly (infer U)[]
  ? Exact<U>[]
  : T extends object
    ? {[K in keyof T as string extends K ? never : number extends K ? never : K]: Exact<T[K]>}
    : T;
