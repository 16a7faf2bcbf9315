import ActivityPushCore
print("activity-push")
