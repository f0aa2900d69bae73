/** What every screen is given: the parameters of its path (`/items/:id` → `{ id }`). */
export interface ScreenProps {
  params: Record<string, string>
}
