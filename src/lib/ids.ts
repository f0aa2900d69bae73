const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether a path parameter can be an id at all: anything else is a 404 before any query. */
export const isUuid = (value: string): boolean => UUID.test(value)
