# A demo image of the agent site for docker-compose.yml (external PostgreSQL+pgvector and Redis).
FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 DJANGO_SETTINGS_MODULE=agentsite.settings
WORKDIR /app
# HAProxy for the balancer service in front of the web processes.
RUN apt-get update && apt-get install -y --no-install-recommends haproxy && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DATABASE_URL=postgresql://build/build REDIS_URL=redis://build SECRET_KEY=build python manage.py collectstatic --noinput
RUN useradd --create-home agent && mkdir -p /app/.data && chown agent /app/.data
USER agent
EXPOSE 8000
