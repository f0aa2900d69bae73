/** Accounts compare and store email addresses trimmed and lower-cased: one account per address. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase()
