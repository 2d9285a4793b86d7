"""The customer's pages: the chat, what we remember, the rating endpoint."""

from django.urls import path

from chat import staff_views, views

urlpatterns = [
    path("", views.chat_page, name="chat"),
    path("memory/", views.memories_page, name="memories"),
    path("memory/<int:pk>/correct/", views.correct_memory, name="memory-correct"),
    path("memory/<int:pk>/delete/", views.delete_memory, name="memory-delete"),
    path("rating/", views.rate_conversation, name="rating"),
    path("staff/", staff_views.console, name="staff-console"),
    path("staff/dashboard/", staff_views.dashboard_page, name="staff-dashboard"),
    path("staff/promises/<int:commitment_id>/<slug:action>/", staff_views.promise, name="staff-promise"),
    path("staff/<uuid:conversation_id>/", staff_views.conversation, name="staff-conversation"),
    path("staff/<uuid:conversation_id>/<slug:action>/", staff_views.act, name="staff-act"),
]
