/**
 * The provider team a deployment goes to: the teams the work's deploy token (the owner's) belongs to, or
 * the default (the provider plugin's team setting, else the token's personal account). Nothing is shown
 * when the token has no team, since there is nothing to choose.
 */
import { messageOf, unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { Select } from '../../shared/ui.tsx'
import { api } from '../api.ts'

export function TeamChoice({
  workId,
  providerName,
  value,
  onValue,
  error,
}: {
  workId: string
  providerName: string
  value: string
  onValue: (team: string) => void
  error: string | undefined
}) {
  const teams = useResource(
    (signal) =>
      unwrap(api.POST('/api/deploy/works/{id}/teams', { signal, params: { path: { id: workId } } })),
    [workId],
  )
  if (teams.error !== undefined)
    return (
      <p class="muted small">
        {providerName}’s teams could not be listed ({messageOf(teams.error)}): the deployment goes to the
        default team.
      </p>
    )
  const list = teams.data?.teams ?? []
  if (list.length === 0) return null
  return (
    <Select
      label={`${providerName} team`}
      value={value}
      onValue={onValue}
      error={error}
      hint="Default: the team set in the provider’s plugin, else the token’s personal account."
      options={[
        { value: '', label: 'Default' },
        ...list.map((team) => ({ value: team.slug, label: `${team.name} (${team.slug})` })),
      ]}
    />
  )
}
