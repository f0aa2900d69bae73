export type { ScreenProps } from '../shared/screens.tsx'
